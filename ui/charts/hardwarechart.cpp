// HardwareChart: the readings are kept (2 Hz is 7,200 an hour, a bounded history) so the chart
// can re-key them when a run starts, or rebuild its layout when the first GPU shows up.
#include "charts/hardwarechart.h"

#include "charts/chartstyle.h"
#include "charts/csvfield.h"

#include <QTextStream>
#include <qcustomplot.h>

#include <algorithm>
#include <set>

namespace tb::ui {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::optional<double> gib(const std::optional<uint64_t>& bytes) {
    if (!bytes)
        return std::nullopt;
    return static_cast<double>(*bytes) / kGiB;
}

} // namespace

HardwareChart::HardwareChart(QWidget* parent) : ChartView(tr("Hardware"), parent) {
    buildLayout(false);
}

HardwareChart::Reading HardwareChart::readingOf(const SystemSample& s) {
    Reading r;
    r.unixTime = s.unixTime;
    r.cpuPercent = s.host.cpuPercent;
    r.ramUsedGiB = gib(s.host.ramUsedBytes);
    r.ramTotalGiB = gib(s.host.ramTotalBytes);
    for (const GpuSample& g : s.gpus)
        r.gpus.push_back({g.index, g.utilPercent, gib(g.memUsedBytes), gib(g.memTotalBytes),
                          g.temperatureC, g.powerW});
    return r;
}

void HardwareChart::setHistoryLimit(std::size_t samples) {
    m_historyLimit = std::max<std::size_t>(samples, 4);
}

void HardwareChart::setTimeOrigin(double unixTime) {
    m_origin = unixTime;
    replay();
}

void HardwareChart::clear() {
    m_readings.clear();
    m_origin.reset();
    buildLayout(false);
}

void HardwareChart::addSamples(const std::vector<SystemSample>& samples) {
    if (samples.empty())
        return;
    if (!m_origin)
        m_origin = samples.front().unixTime;
    const std::size_t first = m_readings.size();
    bool anyGpu = false;
    for (const SystemSample& s : samples) {
        m_readings.push_back(readingOf(s));
        anyGpu = anyGpu || !s.gpus.empty();
    }
    const bool trimmed = m_readings.size() > m_historyLimit;
    if (trimmed) {
        // Dropping a quarter at once keeps the cost of re-plotting per sample constant.
        const std::size_t keep = m_historyLimit - m_historyLimit / 4;
        m_readings.erase(m_readings.begin(), m_readings.end() - static_cast<std::ptrdiff_t>(keep));
    }
    if (anyGpu && !m_showsGpus) {
        buildLayout(true); // replays everything, this batch included
        return;
    }
    if (trimmed) {
        replay();
        return;
    }
    Pending pending;
    for (std::size_t i = first; i < m_readings.size(); ++i)
        plotReading(m_readings[i], pending);
    for (auto& [key, points] : pending)
        m_graphs.at(key)->data()->add(points, true);
    markDirty();
}

QCPGraph* HardwareChart::graph(Metric metric, int gpu) const {
    const auto it = m_graphs.find({metric, gpu});
    return it == m_graphs.end() ? nullptr : it->second;
}

void HardwareChart::buildLayout(bool gpus) {
    m_showsGpus = gpus;
    plot()->clearGraphs();
    m_graphs.clear();
    removeExtraAxisRects();
    m_rects.fill(nullptr);
    QCPAxisRect* first = plot()->axisRect();
    if (gpus) {
        m_rects = {first, addAxisRect(0, 1), addAxisRect(1, 0), addAxisRect(1, 1)};
        m_rects[Utilisation]->axis(QCPAxis::atLeft)->setLabel(tr("utilisation (%)"));
        m_rects[Memory]->axis(QCPAxis::atLeft)->setLabel(tr("memory used (GiB)"));
        m_rects[Temperature]->axis(QCPAxis::atLeft)->setLabel(tr("temperature (°C)"));
        m_rects[Power]->axis(QCPAxis::atLeft)->setLabel(tr("power (W)"));
    } else {
        m_rects[Utilisation] = first;
        m_rects[Memory] = addAxisRect(0, 1);
        m_rects[Utilisation]->axis(QCPAxis::atLeft)->setLabel(tr("CPU (%)"));
        m_rects[Memory]->axis(QCPAxis::atLeft)->setLabel(tr("RAM used (GiB)"));
    }
    // Time labels under the bottom row only.
    const bool twoRows = gpus;
    for (int m = 0; m < kMetricCount; ++m) {
        if (!m_rects[m])
            continue;
        const bool bottom = !twoRows || m == Temperature || m == Power;
        QCPAxis* x = m_rects[m]->axis(QCPAxis::atBottom);
        x->setTickLabels(bottom);
        x->setLabel(bottom ? xAxisLabel(XAxisMode::WallTime) : QString());
    }
    plot()->legend->setVisible(gpus); // the host view's axis labels name its two lines
    replay();
}

void HardwareChart::replay() {
    for (auto& [key, g] : m_graphs)
        g->data()->clear();
    m_extents = {};
    m_memoryTotal = {};
    m_time = {};
    Pending pending;
    for (const Reading& r : m_readings)
        plotReading(r, pending);
    for (auto& [key, points] : pending)
        m_graphs.at(key)->data()->set(points, true);
    markDirty();
    refresh();
}

// Appends one point per known series: the value, or NaN (a gap) where it is missing now.
void HardwareChart::plotReading(const Reading& r, Pending& pending) {
    const double t = r.unixTime - m_origin.value_or(r.unixTime);
    m_time.include(t);
    std::set<SeriesKey> given;
    auto point = [&](Metric metric, int gpu, const std::optional<double>& value) {
        if (!value)
            return;
        ensureGraph(metric, gpu);
        pending[{metric, gpu}].append({t, *value});
        given.insert({metric, gpu});
        m_extents[metric].include(*value);
    };
    if (m_showsGpus) {
        for (const GpuReading& g : r.gpus) {
            point(Utilisation, g.index, g.utilPercent);
            point(Memory, g.index, g.memUsedGiB);
            point(Temperature, g.index, g.temperatureC);
            point(Power, g.index, g.powerW);
            if (g.memTotalGiB)
                m_memoryTotal.include(*g.memTotalGiB);
        }
    } else {
        point(Utilisation, kHost, r.cpuPercent);
        point(Memory, kHost, r.ramUsedGiB);
        if (r.ramTotalGiB)
            m_memoryTotal.include(*r.ramTotalGiB);
    }
    for (const auto& [key, g] : m_graphs)
        if (!given.count(key))
            pending[key].append({t, qQNaN()});
}

QCPGraph* HardwareChart::ensureGraph(Metric metric, int gpu) {
    if (QCPGraph* g = graph(metric, gpu))
        return g;
    QCPAxisRect* rect = m_rects[metric];
    QCPGraph* g = plot()->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    const int colorIndex = gpu == kHost ? metric : gpu;
    g->setPen(seriesPen(seriesColor(colorIndex)));
    g->setName(gpu == kHost ? (metric == Utilisation ? tr("CPU") : tr("RAM"))
                            : tr("GPU%1").arg(gpu));
    // One legend entry per GPU: the colour is the same in every panel.
    bool gpuListed = false;
    for (const auto& [key, other] : m_graphs)
        gpuListed = gpuListed || key.second == gpu;
    if (gpuListed)
        g->removeFromLegend();
    m_graphs[{metric, gpu}] = g;
    return g;
}

void HardwareChart::fitToData() {
    const QCPRange time = m_time.padded(0.02);
    for (int m = 0; m < kMetricCount; ++m) {
        if (!m_rects[m])
            continue;
        m_rects[m]->axis(QCPAxis::atBottom)->setRange(time);
        QCPRange y;
        switch (m) {
        case Utilisation:
            y = m_extents[m].fromZero(100.0);
            break;
        case Memory:
            y = m_extents[m].fromZero(m_memoryTotal.isEmpty() ? 0.0 : m_memoryTotal.hi);
            break;
        case Temperature:
            y = m_extents[m].padded(0.1);
            break;
        default:
            y = m_extents[m].fromZero();
            break;
        }
        m_rects[m]->axis(QCPAxis::atLeft)->setRange(y);
    }
}

void HardwareChart::writeCsv(QTextStream& out) const {
    out << "time_s,device,util_percent,mem_used_gib,temperature_c,power_w\n";
    for (const Reading& r : m_readings) {
        const QString t = csvField(r.unixTime - m_origin.value_or(r.unixTime));
        out << t << ",cpu," << csvField(r.cpuPercent) << ',' << csvField(r.ramUsedGiB) << ",,\n";
        for (const GpuReading& g : r.gpus)
            out << t << ",gpu" << g.index << ',' << csvField(g.utilPercent) << ','
                << csvField(g.memUsedGiB) << ',' << csvField(g.temperatureC) << ','
                << csvField(g.powerW) << '\n';
    }
}

} // namespace tb::ui

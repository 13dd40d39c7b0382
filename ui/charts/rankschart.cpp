// RanksChart: per-rank lines keyed like the other training charts, and stacked horizontal bars
// (QCPBars on a rank axis) for the lanes, refreshed with every batch of steps.
#include "charts/rankschart.h"

#include "charts/chartstyle.h"
#include "charts/csvfield.h"

#include <QTextStream>
#include <qcustomplot.h>

#include <algorithm>

namespace tb::ui {

namespace {

double partOf(const RankStepTimes& t, RanksChart::Part part) {
    switch (part) {
    case RanksChart::Compute:
        return t.computeMs;
    case RanksChart::DataWait:
        return t.dataWaitMs;
    case RanksChart::AllReduce:
        return t.allReduceMs;
    default:
        return std::max(0.0, t.stepMs - t.computeMs - t.dataWaitMs - t.allReduceMs);
    }
}

} // namespace

RanksChart::RanksChart(QWidget* parent)
    : ChartView(tr("Ranks"), parent), m_laneRect(addAxisRect(1, 0, false)) {
    // The panel's x-axis choice says what x is; the chart is short, and its lanes need the room.
    plot()->yAxis->setLabel(tr("ms"));
    QCPAxis* lanesX = m_laneRect->axis(QCPAxis::atBottom);
    QCPAxis* lanesY = m_laneRect->axis(QCPAxis::atLeft);
    lanesX->setLabel(tr("ms per step, last %1 logged intervals").arg(kLaneWindow));
    lanesY->setRangeReversed(true); // rank 0 on top
    lanesY->grid()->setVisible(false);
    const std::array<QString, kPartCount> names = {tr("compute"), tr("data wait"), tr("all-reduce"),
                                                   tr("other")};
    // The colours of the same parts in the step-time chart.
    const std::array<int, kPartCount> colors = {1, 3, 7, 5};
    for (int p = 0; p < kPartCount; ++p) {
        auto* bars = new QCPBars(lanesY, lanesX);
        QColor fill = seriesColor(colors[p]);
        fill.setAlpha(170);
        bars->setName(names[p]);
        bars->setPen(seriesPen(seriesColor(colors[p]), 1.0));
        bars->setBrush(fill);
        bars->setWidth(0.6);
        if (p > 0)
            bars->moveAbove(m_parts[p - 1]);
        m_parts[p] = bars;
    }
    setRowStretch(0, 3);
    setRowStretch(1, 2);
}

void RanksChart::reset(double runStartUnixTime) {
    m_keys.reset(runStartUnixTime);
    m_times.clear();
    m_lineExtent = {};
    m_laneExtent = {};
    for (QCPGraph* g : m_compute)
        plot()->removeGraph(g);
    for (QCPGraph* g : m_allReduce)
        plot()->removeGraph(g);
    m_compute.clear();
    m_allReduce.clear();
    m_ranks = 0;
    for (QCPBars* b : m_parts)
        b->data()->clear();
    markDirty();
    refresh();
}

void RanksChart::ensureRanks(std::size_t ranks) {
    for (std::size_t r = m_ranks; r < ranks; ++r) {
        // Blue, green, purple, ochre: none of the lanes' colours.
        const QColor color = seriesColor(2 * static_cast<int>(r % 4));
        QCPGraph* compute = plot()->addGraph();
        compute->setName(tr("rank %1").arg(r));
        compute->setPen(seriesPen(color, 1.5));
        // The rank's colour, dashed; the legend names the rank once and says once what dashes
        // are.
        QCPGraph* wait = plot()->addGraph();
        wait->setName(r == 0 ? tr("all-reduce wait (dashed)") : tr("rank %1 wait").arg(r));
        QPen dashed = seriesPen(color, 1.2);
        dashed.setStyle(Qt::DashLine);
        wait->setPen(dashed);
        if (r > 0)
            wait->removeFromLegend();
        m_compute.push_back(compute);
        m_allReduce.push_back(wait);
    }
    if (ranks <= m_ranks)
        return;
    m_ranks = ranks;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (std::size_t r = 0; r < m_ranks; ++r)
        ticker->addTick(static_cast<double>(r), tr("rank %1").arg(r));
    m_laneRect->axis(QCPAxis::atLeft)->setTicker(ticker);
}

void RanksChart::addSteps(const std::vector<StepEvent>& steps) {
    const std::size_t first = m_times.size();
    for (const StepEvent& s : steps) {
        if (s.ranks.empty())
            continue;
        ensureRanks(s.ranks.size());
        m_keys.append(s);
        m_times.push_back(s.ranks);
    }
    if (m_times.size() == first)
        return;
    replotLines(first);
    updateLanes();
    markDirty();
}

void RanksChart::replotLines(std::size_t first) {
    for (std::size_t r = 0; r < m_ranks; ++r) {
        QVector<QCPGraphData> compute, wait;
        for (std::size_t i = first; i < m_times.size(); ++i) {
            if (r >= m_times[i].size())
                continue;
            const double key = m_keys.key(i, xAxisMode());
            compute.append({key, m_times[i][r].computeMs});
            wait.append({key, m_times[i][r].allReduceMs});
            m_lineExtent.include(m_times[i][r].computeMs);
            m_lineExtent.include(m_times[i][r].allReduceMs);
        }
        m_compute[r]->data()->add(compute, true);
        m_allReduce[r]->data()->add(wait, true);
    }
}

double RanksChart::laneMs(int rank, Part part) const {
    const std::size_t from = m_times.size() > kLaneWindow ? m_times.size() - kLaneWindow : 0;
    double sum = 0.0;
    std::size_t n = 0;
    for (std::size_t i = from; i < m_times.size(); ++i)
        if (static_cast<std::size_t>(rank) < m_times[i].size()) {
            sum += partOf(m_times[i][static_cast<std::size_t>(rank)], part);
            ++n;
        }
    return n ? sum / static_cast<double>(n) : 0.0;
}

void RanksChart::updateLanes() {
    m_laneExtent = {};
    std::vector<double> total(m_ranks, 0.0);
    for (int p = 0; p < kPartCount; ++p) {
        QVector<QCPBarsData> bars;
        for (std::size_t r = 0; r < m_ranks; ++r) {
            const double ms = laneMs(static_cast<int>(r), static_cast<Part>(p));
            bars.append({static_cast<double>(r), ms});
            total[r] += ms;
        }
        m_parts[p]->data()->set(bars, true);
    }
    for (double t : total)
        m_laneExtent.include(t);
}

QCPGraph* RanksChart::computeGraph(int rank) const {
    return m_compute.at(static_cast<std::size_t>(rank));
}

QCPGraph* RanksChart::allReduceGraph(int rank) const {
    return m_allReduce.at(static_cast<std::size_t>(rank));
}

void RanksChart::xAxisModeChanged() {
    for (std::size_t r = 0; r < m_ranks; ++r) {
        m_compute[r]->data()->clear();
        m_allReduce[r]->data()->clear();
    }
    m_lineExtent = {};
    replotLines(0);
}

void RanksChart::fitToData() {
    plot()->xAxis->setRange(m_keys.extent(xAxisMode()).padded(0.02));
    plot()->yAxis->setRange(m_lineExtent.fromZero());
    m_laneRect->axis(QCPAxis::atBottom)->setRange(m_laneExtent.fromZero());
    m_laneRect->axis(QCPAxis::atLeft)->setRange(-0.5, std::max<double>(1.0, m_ranks) - 0.5);
}

void RanksChart::writeCsv(QTextStream& out) const {
    out << "step,samples,time_s";
    for (std::size_t r = 0; r < m_ranks; ++r)
        out << ",rank" << r << "_step_ms,rank" << r << "_data_wait_ms,rank" << r
            << "_compute_ms,rank" << r << "_allreduce_ms";
    out << '\n';
    for (std::size_t i = 0; i < m_times.size(); ++i) {
        out << csvField(m_keys.key(i, XAxisMode::Step)) << ','
            << csvField(m_keys.key(i, XAxisMode::Samples)) << ','
            << csvField(m_keys.key(i, XAxisMode::WallTime));
        for (std::size_t r = 0; r < m_ranks; ++r) {
            if (r < m_times[i].size()) {
                const RankStepTimes& t = m_times[i][r];
                out << ',' << csvField(t.stepMs) << ',' << csvField(t.dataWaitMs) << ','
                    << csvField(t.computeMs) << ',' << csvField(t.allReduceMs);
            } else {
                out << ",,,,";
            }
        }
        out << '\n';
    }
}

} // namespace tb::ui

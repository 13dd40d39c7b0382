// ThroughputChart: each part's graph holds the running sum of the binned parts below it and
// fills down to the graph under it, which is how a stacked area is drawn with QCPGraph.
#include "charts/throughputchart.h"

#include "charts/chartstyle.h"
#include "charts/csvfield.h"

#include <QTextStream>
#include <qcustomplot.h>

#include <algorithm>

namespace tb::ui {

ThroughputChart::ThroughputChart(QWidget* parent)
    : ChartView(tr("Throughput and step time"), parent), m_timeRect(addAxisRect(1, 0)),
      m_samplesPerSec(plot()->addGraph()), m_advice(new AdviceMarkers(plot(), plot()->axisRect())) {
    m_samplesPerSec->setName(tr("samples/s"));
    m_samplesPerSec->setPen(seriesPen(seriesColor(0)));
    plot()->yAxis->setLabel(tr("samples/s"));
    // The x label goes under the lower rect only; both share the x range.
    plot()->xAxis->setTickLabels(false);

    const std::array<QString, kPartCount> names = {
        tr("data wait"),  tr("H2D"),       tr("forward"), tr("backward"),
        tr("all-reduce"), tr("optimizer"), tr("other")};
    const std::array<int, kPartCount> colors = {3, 6, 2, 1, 7, 4, 5};
    QCPAxis* x = m_timeRect->axis(QCPAxis::atBottom);
    QCPAxis* y = m_timeRect->axis(QCPAxis::atLeft);
    y->setLabel(tr("ms per step"));
    x->setLabel(xAxisLabel(xAxisMode()));
    for (int p = 0; p < kPartCount; ++p) {
        QCPGraph* g = plot()->addGraph(x, y);
        const QColor color = seriesColor(colors[p]);
        QColor fill = color;
        fill.setAlpha(150);
        g->setName(names[p]);
        g->setPen(seriesPen(color, 1.0));
        g->setBrush(fill);
        if (p > 0)
            g->setChannelFillGraph(m_parts[p - 1]);
        m_parts[p] = g;
    }
    // Anti-aliased fills cost 4x; each area's edge is an anti-aliased line anyway.
    plot()->setNotAntialiasedElements(QCP::aeFills);
}

void ThroughputChart::reset(double runStartUnixTime, int64_t tokensPerSample) {
    m_keys.reset(runStartUnixTime);
    m_rateScale = tokensPerSample > 0 ? static_cast<double>(tokensPerSample) : 1.0;
    const QString unit = tokensPerSample > 0 ? tr("tokens/s") : tr("samples/s");
    m_samplesPerSec->setName(unit);
    plot()->yAxis->setLabel(unit);
    m_advice->clear();
    m_rate.clear();
    m_ms.clear();
    m_rateExtent = {};
    m_stackExtent = {};
    m_bins.clear();
    m_samplesPerSec->data()->clear();
    for (QCPGraph* g : m_parts)
        g->data()->clear();
    markDirty();
    refresh();
}

ThroughputChart::Parts ThroughputChart::partsOf(const StepEvent& s) {
    const double known =
        s.dataWaitMs + s.h2dMs + s.forwardMs + s.backwardMs + s.allReduceMs + s.optimizerMs;
    return {s.dataWaitMs,
            s.h2dMs,
            s.forwardMs,
            s.backwardMs,
            s.allReduceMs,
            s.optimizerMs,
            std::max(0.0, s.stepMs - known)};
}

void ThroughputChart::addSteps(const std::vector<StepEvent>& steps) {
    if (steps.empty())
        return;
    const std::size_t first = m_rate.size();
    for (const StepEvent& s : steps) {
        m_keys.append(s);
        m_rate.push_back(s.samplesPerSec * m_rateScale);
        m_ms.push_back(partsOf(s));
        m_rateExtent.include(m_rate.back());
    }
    append(first);
}

void ThroughputChart::append(std::size_t first) {
    QVector<QCPGraphData> rate;
    rate.reserve(static_cast<int>(m_rate.size() - first));
    for (std::size_t i = first; i < m_rate.size(); ++i) {
        const double key = m_keys.key(i, xAxisMode());
        rate.append({key, m_rate[i]});
        m_bins.add(key, m_ms[i].data());
    }
    m_samplesPerSec->data()->add(rate, true);

    std::array<QVector<QCPGraphData>, kPartCount> stacked;
    for (auto& v : stacked)
        v.reserve(static_cast<int>(m_bins.binCount()));
    m_stackExtent = {}; // of what is drawn: the binned stack
    for (std::size_t b = 0; b < m_bins.binCount(); ++b) {
        double top = 0.0;
        for (int p = 0; p < kPartCount; ++p) {
            top += m_bins.value(b, static_cast<std::size_t>(p));
            stacked[p].append({m_bins.key(b), top});
        }
        m_stackExtent.include(top);
    }
    for (int p = 0; p < kPartCount; ++p)
        m_parts[p]->data()->set(stacked[p], true);
    markDirty();
}

void ThroughputChart::addAdvice(const AdviceEvent& advice) {
    m_advice->add(advice, m_keys, xAxisMode());
    markDirty();
}

void ThroughputChart::xAxisModeChanged() {
    m_advice->rekey(m_keys, xAxisMode());
    m_timeRect->axis(QCPAxis::atBottom)->setLabel(xAxisLabel(xAxisMode()));
    m_bins.clear();
    m_samplesPerSec->data()->clear();
    for (QCPGraph* g : m_parts)
        g->data()->clear();
    append(0);
}

void ThroughputChart::fitToData() {
    m_timeRect->axis(QCPAxis::atBottom)->setRange(m_keys.extent(xAxisMode()).padded(0.02));
    plot()->yAxis->setRange(m_rateExtent.fromZero());
    m_timeRect->axis(QCPAxis::atLeft)->setRange(m_stackExtent.fromZero());
}

void ThroughputChart::writeCsv(QTextStream& out) const {
    out << "step,samples,time_s,samples_per_sec,data_wait_ms,h2d_ms,forward_ms,backward_ms,"
           "allreduce_ms,optimizer_ms,other_ms\n";
    for (std::size_t i = 0; i < m_rate.size(); ++i) {
        out << csvField(m_keys.key(i, XAxisMode::Step)) << ','
            << csvField(m_keys.key(i, XAxisMode::Samples)) << ','
            << csvField(m_keys.key(i, XAxisMode::WallTime)) << ',' << csvField(m_rate[i]);
        for (double ms : m_ms[i])
            out << ',' << csvField(ms);
        out << '\n';
    }
}

} // namespace tb::ui

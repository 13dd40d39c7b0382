// PrecisionChart: a step line for the scale (it changes in jumps) and crosses for skips.
#include "charts/precisionchart.h"

#include "charts/chartstyle.h"
#include "charts/csvfield.h"

#include <QTextStream>
#include <qcustomplot.h>

namespace tb::ui {

PrecisionChart::PrecisionChart(QWidget* parent)
    : ChartView(tr("Mixed precision"), parent), m_scale(plot()->addGraph()),
      m_skipped(plot()->addGraph()) {
    m_scale->setName(tr("loss scale"));
    m_scale->setPen(seriesPen(seriesColor(4), 1.5)); // a few steps, not a dense line
    m_scale->setLineStyle(QCPGraph::lsStepLeft);
    m_skipped->setName(tr("skipped steps"));
    m_skipped->setLineStyle(QCPGraph::lsNone);
    m_skipped->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCross, seriesPen(seriesColor(3), 2.0), Qt::NoBrush, 8));
    plot()->xAxis->setLabel(xAxisLabel(xAxisMode()));
    plot()->yAxis->setLabel(tr("loss scale"));
    plot()->yAxis->setScaleType(QCPAxis::stLogarithmic);
    auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
    ticker->setLogBase(2); // GradScaler halves and doubles: ticks at 8192, 16384, 32768...
    ticker->setSubTickCount(0);
    plot()->yAxis->setTicker(ticker);
    plot()->yAxis->setNumberFormat(QStringLiteral("f"));
    plot()->yAxis->setNumberPrecision(0);
}

void PrecisionChart::reset(double runStartUnixTime) {
    m_keys.reset(runStartUnixTime);
    m_lossScale.clear();
    m_wasSkipped.clear();
    m_scaleExtent = {};
    m_scale->data()->clear();
    m_skipped->data()->clear();
    markDirty();
    refresh();
}

void PrecisionChart::addSteps(const std::vector<StepEvent>& steps) {
    if (steps.empty())
        return;
    const std::size_t first = m_lossScale.size();
    for (const StepEvent& s : steps) {
        m_keys.append(s);
        // A log axis cannot show a scale <= 0: such a value is a gap.
        const double scale = s.lossScale > 0.0 ? s.lossScale : qQNaN();
        m_lossScale.push_back(scale);
        m_wasSkipped.push_back(s.skipped);
        m_scaleExtent.include(scale);
    }
    append(first);
}

void PrecisionChart::append(std::size_t first) {
    QVector<QCPGraphData> scale, skipped;
    scale.reserve(static_cast<int>(m_lossScale.size() - first));
    for (std::size_t i = first; i < m_lossScale.size(); ++i) {
        const double key = m_keys.key(i, xAxisMode());
        scale.append({key, m_lossScale[i]});
        if (m_wasSkipped[i])
            skipped.append({key, m_lossScale[i]});
    }
    m_scale->data()->add(scale, true);
    m_skipped->data()->add(skipped, true);
    markDirty();
}

void PrecisionChart::xAxisModeChanged() {
    plot()->xAxis->setLabel(xAxisLabel(xAxisMode()));
    m_scale->data()->clear();
    m_skipped->data()->clear();
    append(0);
}

void PrecisionChart::fitToData() {
    plot()->xAxis->setRange(m_keys.extent(xAxisMode()).padded(0.02));
    plot()->yAxis->setRange(m_scaleExtent.paddedLog());
}

void PrecisionChart::writeCsv(QTextStream& out) const {
    out << "step,samples,time_s,loss_scale,skipped\n";
    for (std::size_t i = 0; i < m_lossScale.size(); ++i)
        out << csvField(m_keys.key(i, XAxisMode::Step)) << ','
            << csvField(m_keys.key(i, XAxisMode::Samples)) << ','
            << csvField(m_keys.key(i, XAxisMode::WallTime)) << ',' << csvField(m_lossScale[i])
            << ',' << (m_wasSkipped[i] ? 1 : 0) << '\n';
}

} // namespace tb::ui

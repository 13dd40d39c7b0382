// LossChart: points are appended in bulk per tick; a new smoothing weight or x-axis mode
// rebuilds both lines from the kept values in one pass.
#include "charts/losschart.h"

#include "charts/chartstyle.h"
#include "charts/csvfield.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QTextStream>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace tb::ui {

namespace {
constexpr int kSliderSteps = 100; // weight = slider value / 100, 0..0.99
}

LossChart::LossChart(QWidget* parent)
    : ChartView(tr("Training loss"), parent), m_raw(plot()->addGraph()),
      m_smoothed(plot()->addGraph()), m_clipped(plot()->addGraph()),
      m_slider(new QSlider(Qt::Horizontal, this)), m_weightLabel(new QLabel(this)),
      m_advice(new AdviceMarkers(plot(), plot()->axisRect())) {
    const QColor color = seriesColor(0);
    QColor faint = color;
    faint.setAlpha(70);
    m_raw->setName(tr("loss"));
    m_raw->setPen(seriesPen(faint, 1.0));
    m_raw->removeFromLegend();
    m_smoothed->setName(tr("loss (smoothed)"));
    m_smoothed->setPen(seriesPen(color));
    m_clipped->setName(tr("gradients clipped"));
    m_clipped->setLineStyle(QCPGraph::lsNone);
    m_clipped->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangleInverted,
                                               seriesPen(seriesColor(1), 1.5), Qt::NoBrush, 7));
    plot()->xAxis->setLabel(xAxisLabel(xAxisMode()));
    plot()->yAxis->setLabel(tr("loss"));
    plot()->legend->setVisible(false); // one line and its axis label say it all

    m_slider->setObjectName(QStringLiteral("smoothingSlider"));
    m_slider->setAccessibleName(tr("Smoothing of the training loss"));
    m_slider->setRange(0, kSliderSteps - 1);
    m_slider->setValue(static_cast<int>(std::lround(m_ema.weight() * kSliderSteps)));
    m_slider->setMinimumWidth(70);
    m_slider->setMaximumWidth(140);
    m_slider->setToolTip(tr("Smoothing: TensorBoard's debiased exponential moving average"));
    m_weightLabel->setObjectName(QStringLiteral("smoothingValue"));
    m_weightLabel->setText(QString::number(m_ema.weight(), 'f', 2));
    controls()->addWidget(new QLabel(tr("Smoothing"), this));
    controls()->addWidget(m_slider);
    controls()->addWidget(m_weightLabel);
    connect(m_slider, &QSlider::valueChanged, this,
            [this](int value) { setSmoothingWeight(value / double(kSliderSteps)); });
}

void LossChart::reset(double runStartUnixTime) {
    m_keys.reset(runStartUnixTime);
    m_advice->clear();
    m_loss.clear();
    m_smoothedLoss.clear();
    m_gradNorm.clear();
    m_clippedSteps.clear();
    for (QCPGraph* graph : m_termGraphs)
        plot()->removeGraph(graph);
    m_termList.clear();
    m_termGraphs.clear();
    m_lossExtent = {};
    m_ema.reset(m_ema.weight());
    rebuild();
    updateLegend(); // after rebuild() has emptied the clipped marks
}

LossChart::Term& LossChart::term(const std::string& name) {
    const QString label = QString::fromStdString(name);
    for (Term& t : m_termList)
        if (t.name == label)
            return t;
    Term t;
    t.name = label;
    t.graph = plot()->addGraph();
    t.graph->setName(tr("%1 loss (smoothed)").arg(label));
    t.graph->setPen(seriesPen(seriesColor(2 + static_cast<int>(m_termList.size())), 1.5));
    t.ema.reset(m_ema.weight());
    // Steps logged before the term appeared have no value: gaps, as a non-finite loss.
    t.values.assign(m_loss.size(), qQNaN());
    t.smoothed.assign(m_loss.size(), qQNaN());
    m_termGraphs.push_back(t.graph);
    m_termList.push_back(std::move(t));
    return m_termList.back();
}

void LossChart::updateLegend() {
    // One line and its axis label say it all; the legend appears once there are several kinds.
    plot()->legend->setVisible(!m_termList.empty() || !m_clipped->data()->isEmpty());
}

void LossChart::addSteps(const std::vector<StepEvent>& steps) {
    if (steps.empty())
        return;
    QVector<QCPGraphData> raw, smoothed, clipped;
    raw.reserve(static_cast<int>(steps.size()));
    smoothed.reserve(static_cast<int>(steps.size()));
    for (const StepEvent& s : steps) {
        for (const LossTerm& lt : s.lossTerms) // a new term's line starts at this step
            term(lt.name);
        m_gradNorm.push_back(s.gradNorm);
        m_clippedSteps.push_back(s.clippedSteps);
        m_keys.append(s);
        const double key = m_keys.key(m_keys.size() - 1, xAxisMode());
        const double value = m_ema.add(s.loss);
        m_loss.push_back(s.loss);
        m_smoothedLoss.push_back(value);
        m_lossExtent.include(s.loss);
        // A non-finite loss is NaN on the plot: a gap, never a point at 0 or infinity.
        raw.append({key, std::isfinite(s.loss) ? s.loss : qQNaN()});
        smoothed.append({key, std::isfinite(value) ? value : qQNaN()});
        if (s.clippedSteps > 0 && std::isfinite(s.loss))
            clipped.append({key, s.loss});
        for (Term& t : m_termList) {
            double v = qQNaN();
            for (const LossTerm& lt : s.lossTerms)
                if (t.name == QString::fromStdString(lt.name))
                    v = lt.value;
            const double smooth = std::isfinite(v) ? t.ema.add(v) : qQNaN();
            if (std::isfinite(v))
                m_lossExtent.include(v);
            t.values.push_back(v);
            t.smoothed.push_back(smooth);
            t.graph->addData(key, smooth);
        }
    }
    m_raw->data()->add(raw, true);
    m_smoothed->data()->add(smoothed, true);
    m_clipped->data()->add(clipped, true);
    updateLegend();
    markDirty();
}

void LossChart::setSmoothingWeight(double weight) {
    weight = std::clamp(weight, 0.0, (kSliderSteps - 1) / double(kSliderSteps));
    m_weightLabel->setText(QString::number(weight, 'f', 2));
    {
        const QSignalBlocker block(m_slider);
        m_slider->setValue(static_cast<int>(std::lround(weight * kSliderSteps)));
    }
    if (weight == m_ema.weight())
        return;
    m_ema.reset(weight);
    for (std::size_t i = 0; i < m_loss.size(); ++i)
        m_smoothedLoss[i] = m_ema.add(m_loss[i]);
    for (Term& t : m_termList) {
        t.ema.reset(weight);
        for (std::size_t i = 0; i < t.values.size(); ++i)
            t.smoothed[i] = std::isfinite(t.values[i]) ? t.ema.add(t.values[i]) : qQNaN();
    }
    rebuild();
}

void LossChart::rebuild() {
    QVector<QCPGraphData> raw, smoothed, clipped;
    raw.reserve(static_cast<int>(m_loss.size()));
    smoothed.reserve(static_cast<int>(m_loss.size()));
    for (std::size_t i = 0; i < m_loss.size(); ++i) {
        const double key = m_keys.key(i, xAxisMode());
        raw.append({key, std::isfinite(m_loss[i]) ? m_loss[i] : qQNaN()});
        smoothed.append({key, std::isfinite(m_smoothedLoss[i]) ? m_smoothedLoss[i] : qQNaN()});
        if (m_clippedSteps[i] > 0 && std::isfinite(m_loss[i]))
            clipped.append({key, m_loss[i]});
    }
    m_raw->data()->set(raw, true);
    m_smoothed->data()->set(smoothed, true);
    m_clipped->data()->set(clipped, true);
    for (Term& t : m_termList) {
        QVector<QCPGraphData> points;
        points.reserve(static_cast<int>(t.smoothed.size()));
        for (std::size_t i = 0; i < t.smoothed.size(); ++i)
            points.append({m_keys.key(i, xAxisMode()), t.smoothed[i]});
        t.graph->data()->set(points, true);
    }
    markDirty();
    refresh();
}

void LossChart::addAdvice(const AdviceEvent& advice) {
    m_advice->add(advice, m_keys, xAxisMode());
    markDirty();
}

void LossChart::xAxisModeChanged() {
    m_advice->rekey(m_keys, xAxisMode());
    plot()->xAxis->setLabel(xAxisLabel(xAxisMode()));
    rebuild();
}

void LossChart::fitToData() {
    plot()->xAxis->setRange(m_keys.extent(xAxisMode()).padded(0.02));
    plot()->yAxis->setRange(m_lossExtent.padded());
}

void LossChart::writeCsv(QTextStream& out) const {
    out << "step,samples,time_s,loss,loss_smoothed,grad_norm,clipped_steps";
    for (const Term& t : m_termList)
        out << ',' << t.name << "_loss";
    out << '\n';
    for (std::size_t i = 0; i < m_loss.size(); ++i) {
        out << csvField(m_keys.key(i, XAxisMode::Step)) << ','
            << csvField(m_keys.key(i, XAxisMode::Samples)) << ','
            << csvField(m_keys.key(i, XAxisMode::WallTime)) << ',' << csvField(m_loss[i]) << ','
            << csvField(m_smoothedLoss[i]) << ','
            << (m_gradNorm[i] > 0.0 ? csvField(m_gradNorm[i]) : QString()) << ','
            << m_clippedSteps[i];
        for (const Term& t : m_termList)
            out << ',' << (std::isfinite(t.values[i]) ? csvField(t.values[i]) : QString());
        out << '\n';
    }
}

} // namespace tb::ui

// LossChart: the training loss of each logged step, raw as a faint line under TensorBoard's
// debiased EMA, with the smoothing weight on a slider. With gradient_clip_val, the logged steps
// whose interval clipped the gradients are marked on the raw loss (a legend then names them).
#pragma once

#include "charts/advicemarkers.h"
#include "charts/chartview.h"
#include "charts/dataextent.h"
#include "charts/stepkeys.h"
#include "core/smoothing.h"
#include "events/events.h"

#include <vector>

class QCPGraph;
class QLabel;
class QSlider;

namespace tb::ui {

class LossChart : public ChartView {
    Q_OBJECT

public:
    explicit LossChart(QWidget* parent = nullptr);

    // Forgets all points; wall time counts from runStartUnixTime.
    void reset(double runStartUnixTime);
    void addSteps(const std::vector<StepEvent>& steps);
    // A marker at the advice's step (after that step was added).
    void addAdvice(const AdviceEvent& advice);
    const AdviceMarkers* adviceMarkers() const { return m_advice; }

    double smoothingWeight() const { return m_ema.weight(); }
    // Weight in [0, 0.99] (clamped); recomputes the smoothed line and moves the slider.
    void setSmoothingWeight(double weight);

    QCPGraph* rawGraph() const { return m_raw; }
    QCPGraph* smoothedGraph() const { return m_smoothed; }
    QCPGraph* clippedGraph() const { return m_clipped; }

protected:
    void writeCsv(QTextStream& out) const override;
    void fitToData() override;
    void xAxisModeChanged() override;

private:
    void rebuild();

    QCPGraph* m_raw;
    QCPGraph* m_smoothed;
    QCPGraph* m_clipped;
    QSlider* m_slider;
    QLabel* m_weightLabel;
    StepKeys m_keys;
    AdviceMarkers* m_advice;
    std::vector<double> m_loss;
    std::vector<double> m_smoothedLoss;
    std::vector<double> m_gradNorm; // 0 where the run does not clip
    std::vector<int> m_clippedSteps;
    DebiasedEma m_ema;
    Extent m_lossExtent;
};

} // namespace tb::ui

// LossChart: the training loss of each logged step, raw as a faint line under TensorBoard's
// debiased EMA, with the smoothing weight on a slider. With gradient_clip_val, the logged steps
// whose interval clipped the gradients are marked on the raw loss (a legend then names them).
// A loss made of terms (a detector's box, cls and dfl) adds each term's smoothed line, so that
// one sees which part falls and which stalls, as Ultralytics' results plot does.
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
    // The smoothed line of each loss term, in the run's order of terms.
    const std::vector<QCPGraph*>& termGraphs() const { return m_termGraphs; }

protected:
    void writeCsv(QTextStream& out) const override;
    void fitToData() override;
    void xAxisModeChanged() override;

private:
    // The kept values of one loss term and its smoothed line.
    struct Term {
        QString name;
        QCPGraph* graph = nullptr;
        DebiasedEma ema;
        std::vector<double> values, smoothed;
    };
    void rebuild();
    Term& term(const std::string& name);
    void updateLegend();

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
    std::vector<Term> m_termList;
    std::vector<QCPGraph*> m_termGraphs;
    DebiasedEma m_ema;
    Extent m_lossExtent;
};

} // namespace tb::ui

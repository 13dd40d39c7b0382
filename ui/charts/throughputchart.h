// ThroughputChart: samples/s (a language model's: tokens/s) of each logged step (top) over where
// the step's time went (bottom, stacked areas in ms per step: data wait, H2D copy, forward,
// backward, all-reduce, optimizer, other). The areas show means over bins of consecutive steps
// (at most kAreaBins bins): noisy filled polygons of 200,000 points take Qt ~100 ms to fill,
// and a breakdown reads better averaged.
#pragma once

#include "charts/advicemarkers.h"
#include "charts/binnedmeans.h"
#include "charts/chartview.h"
#include "charts/dataextent.h"
#include "charts/stepkeys.h"
#include "events/events.h"

#include <array>
#include <vector>

class QCPGraph;

namespace tb::ui {

class ThroughputChart : public ChartView {
    Q_OBJECT

public:
    // The stacked parts of a step, bottom to top. "Other" is the step time no part accounts
    // for (synchronisation, logging), so the top of the stack is the whole step.
    enum Part {
        DataWait,
        HostToDevice,
        Forward,
        Backward,
        AllReduce, // data-parallel runs: the gradients' all-reduce that backward did not hide
        Optimizer,
        Other,
        kPartCount
    };
    static constexpr std::size_t kAreaBins = 1024;

    explicit ThroughputChart(QWidget* parent = nullptr);

    // tokensPerSample > 0: a language model's run, its speed drawn in tokens/s.
    void reset(double runStartUnixTime, int64_t tokensPerSample = 0);
    void addSteps(const std::vector<StepEvent>& steps);
    // A marker at the advice's step (after that step was added).
    void addAdvice(const AdviceEvent& advice);
    const AdviceMarkers* adviceMarkers() const { return m_advice; }

    QCPGraph* samplesPerSecGraph() const { return m_samplesPerSec; }
    // The area whose upper edge is the sum of the parts up to and including `part`.
    QCPGraph* partGraph(Part part) const { return m_parts[part]; }

protected:
    void writeCsv(QTextStream& out) const override;
    void fitToData() override;
    void xAxisModeChanged() override;

private:
    using Parts = std::array<double, kPartCount>;
    static Parts partsOf(const StepEvent& step);
    // Plots points [first, end) of the kept values: appended to the samples/s line, binned
    // into the areas (whose few hundred points are then set anew).
    void append(std::size_t first);

    QCPAxisRect* m_timeRect;
    QCPGraph* m_samplesPerSec;
    std::array<QCPGraph*, kPartCount> m_parts;
    StepKeys m_keys;
    AdviceMarkers* m_advice;
    std::vector<double> m_rate;
    std::vector<Parts> m_ms;
    BinnedMeans m_bins{kPartCount, kAreaBins};
    Extent m_rateExtent;
    double m_rateScale = 1.0; // tokens a sample for a language model, else 1
    Extent m_stackExtent;
};

} // namespace tb::ui

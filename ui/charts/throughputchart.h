// ThroughputChart: samples/s of each logged step (top) over where the step's time went (bottom,
// stacked areas in ms per step: data wait, H2D copy, forward, backward, optimizer, other).
#pragma once

#include "charts/chartview.h"
#include "charts/dataextent.h"
#include "charts/stepkeys.h"
#include "train/events.h"

#include <array>
#include <vector>

class QCPGraph;

namespace tb {

class ThroughputChart : public ChartView {
    Q_OBJECT

public:
    // The stacked parts of a step, bottom to top. "Other" is the step time no part accounts
    // for (synchronisation, logging), so the top of the stack is the whole step.
    enum Part { DataWait, HostToDevice, Forward, Backward, Optimizer, Other, kPartCount };

    explicit ThroughputChart(QWidget* parent = nullptr);

    void reset(double runStartUnixTime);
    void addSteps(const std::vector<StepEvent>& steps);

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
    void append(std::size_t first);

    QCPAxisRect* m_timeRect;
    QCPGraph* m_samplesPerSec;
    std::array<QCPGraph*, kPartCount> m_parts;
    StepKeys m_keys;
    std::vector<double> m_rate;
    std::vector<Parts> m_ms;
    Extent m_rateExtent;
    Extent m_stackExtent;
};

} // namespace tb

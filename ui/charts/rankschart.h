// RanksChart: the ranks of a data-parallel run side by side. Top: each rank's compute time
// (solid) and the all-reduce time backward did not hide (dashed: its wait) per step, one
// colour per rank.
// Bottom: one lane per rank, the mean of the last logged intervals stacked as compute, data
// wait, exposed all-reduce and the rest of the step, in ms. The ranks of a job step together,
// so a rank that lags shows as the others' all-reduce wait, and a starved rank as its own data
// wait.
#pragma once

#include "charts/chartview.h"
#include "charts/dataextent.h"
#include "charts/stepkeys.h"
#include "events/events.h"

#include <array>
#include <vector>

class QCPBars;
class QCPGraph;

namespace tb::ui {

class RanksChart : public ChartView {
    Q_OBJECT

public:
    // A lane's parts, left to right.
    enum Part { Compute, DataWait, AllReduce, Other, kPartCount };
    // Logged intervals the lanes average.
    static constexpr std::size_t kLaneWindow = 10;

    explicit RanksChart(QWidget* parent = nullptr);

    void reset(double runStartUnixTime);
    // Steps of a run without ranks are ignored.
    void addSteps(const std::vector<StepEvent>& steps);

    int rankCount() const { return static_cast<int>(m_ranks); }
    // The lanes as drawn: rank r's mean ms of `part` over the last kLaneWindow intervals.
    double laneMs(int rank, Part part) const;
    QCPGraph* computeGraph(int rank) const;
    QCPGraph* allReduceGraph(int rank) const;

protected:
    void writeCsv(QTextStream& out) const override;
    void fitToData() override;
    void xAxisModeChanged() override;

private:
    void ensureRanks(std::size_t ranks);
    void replotLines(std::size_t first);
    void updateLanes();

    QCPAxisRect* m_laneRect;
    std::array<QCPBars*, kPartCount> m_parts{};
    std::vector<QCPGraph*> m_compute, m_allReduce;
    std::size_t m_ranks = 0;
    StepKeys m_keys;
    std::vector<std::vector<RankStepTimes>> m_times; // per logged step, per rank
    Extent m_lineExtent, m_laneExtent;
};

} // namespace tb::ui

// Successive halving as ASHA does it, without waiting for a rung to fill: a trial reaching a
// rung is measured there and goes on only while it is among the best 1/reduction of the trials
// measured at that rung so far (and always when it is the best of them). Trials running at once
// share one ladder; each is judged by a HalvingJudge listening to its events.
#pragma once

#include "events/events.h"
#include "experiments/sweepdefinition.h"

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace tb {

// ASHA's rule: whether `value` is among the best max(1, n / reduction) of `measured` (n values,
// `value` among them). A value that is not a number (a diverged trial) never goes on.
bool promotedAtRung(double value, std::vector<double> measured, int reduction, bool maximize);

// A trial's value of a training-time metric (runsummary.h: measuredWhileTraining) after the
// epochs it has finished: best_val_acc is the best so far, the others the last epoch's.
std::optional<double> metricAfterEpochs(const std::string& metric,
                                        const std::vector<EpochEvent>& epochs);

// The values measured at each rung. Thread-safe.
class HalvingLadder {
public:
    HalvingLadder(HalvingBudget budget, bool maximize);
    const HalvingBudget& budget() const { return m_budget; }
    // Records a value at rung `rung` (an index into budget().rungs()) and says whether the
    // trial goes on.
    bool judge(std::size_t rung, double value);
    // Records a trial that was measured before (an earlier invocation of the sweep).
    void record(std::size_t rung, double value);
    std::size_t measuredAt(std::size_t rung) const;

private:
    HalvingBudget m_budget;
    bool m_maximize;
    mutable std::mutex m_mutex;
    std::vector<std::vector<double>> m_values; // per rung
};

// Judges one trial at each rung its events reach, and stops it (through `stop`) when the
// ladder says so. Receives events on the trainer's thread.
class HalvingJudge : public EventSink {
public:
    HalvingJudge(HalvingLadder& ladder, std::string metric, std::stop_source stop);
    void onEvent(const Event& event) override;
    // The budget (epochs or steps) at which the trial was stopped; empty while it goes on.
    std::optional<int64_t> haltedAt() const { return m_haltedAt; }

private:
    void reach(int64_t budgetUsed, const std::optional<double>& value);

    HalvingLadder& m_ladder;
    std::string m_metric;
    std::stop_source m_stop;
    std::vector<int64_t> m_rungs;
    std::size_t m_nextRung = 0;
    std::vector<EpochEvent> m_epochs;
    std::optional<int64_t> m_haltedAt;
};

} // namespace tb

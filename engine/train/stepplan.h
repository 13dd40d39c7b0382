// How many optimizer steps a run takes and how long the rest will take: what the trainer runs,
// what the window's set-up previews (the learning-rate curve) and what the CLI's and the
// window's progress lines say, computed once here so they cannot disagree.
#pragma once

#include "train/runconfig.h"

#include <chrono>
#include <cstdint>

namespace tb {

struct StepPlan {
    int64_t microBatchesPerEpoch = 0; // loader batches, drop_last applied
    int64_t stepsPerEpoch = 0;        // optimizer steps: micro-batches / accumulate_grad_batches
    int64_t totalSteps = 0;           // bounded by max_epochs and max_steps
    int64_t epochs() const {
        return stepsPerEpoch > 0 ? (totalSteps + stepsPerEpoch - 1) / stepsPerEpoch : 0;
    }
};

// The plan of `config` over a training split of trainSamples samples.
StepPlan planSteps(const RunConfig& config, int64_t trainSamples);
// The plan once the loader's batches per epoch are known (the trainer's own count).
StepPlan planStepsFromBatches(const RunConfig& config, int64_t microBatchesPerEpoch);

// The time left, extrapolated from the steps of this session (a resumed run counts from its
// resume point, so the steps before it do not make the rest look fast).
class RemainingTime {
public:
    void begin(int64_t totalSteps, int64_t startStep);
    // Seconds left after `step` was reached `elapsedSeconds` after begin(); 0 before any step.
    double seconds(int64_t step, double elapsedSeconds) const;
    // The same measured on the steady clock since begin().
    double seconds(int64_t step) const;

private:
    int64_t m_total = 0, m_start = 0;
    std::chrono::steady_clock::time_point m_began = std::chrono::steady_clock::now();
};

} // namespace tb

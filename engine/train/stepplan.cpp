// planSteps and RemainingTime.
#include "train/stepplan.h"

#include <algorithm>

namespace tb {

StepPlan planStepsFromBatches(const RunConfig& c, int64_t microBatchesPerEpoch) {
    StepPlan p;
    p.microBatchesPerEpoch = std::max<int64_t>(microBatchesPerEpoch, 0);
    const int64_t k = std::max(c.accumulateGradBatches, 1);
    p.stepsPerEpoch = (p.microBatchesPerEpoch + k - 1) / k;
    p.totalSteps = c.maxEpochs > 0 ? c.maxEpochs * p.stepsPerEpoch : c.maxSteps;
    if (c.maxSteps > 0)
        p.totalSteps = std::min(p.totalSteps, c.maxSteps);
    p.totalSteps = std::max<int64_t>(p.totalSteps, 0);
    return p;
}

StepPlan planSteps(const RunConfig& c, int64_t trainSamples) {
    const int64_t b = std::max<int64_t>(c.batchSize, 1);
    return planStepsFromBatches(c, c.dropLast ? trainSamples / b : (trainSamples + b - 1) / b);
}

void RemainingTime::begin(int64_t totalSteps, int64_t startStep) {
    m_total = totalSteps;
    m_start = startStep;
    m_began = std::chrono::steady_clock::now();
}

double RemainingTime::seconds(int64_t step, double elapsed) const {
    const int64_t done = step - m_start;
    if (done <= 0 || step >= m_total)
        return 0.0;
    return elapsed / static_cast<double>(done) * static_cast<double>(m_total - step);
}

double RemainingTime::seconds(int64_t step) const {
    return seconds(step, std::chrono::duration<double>(std::chrono::steady_clock::now() - m_began)
                             .count());
}

} // namespace tb

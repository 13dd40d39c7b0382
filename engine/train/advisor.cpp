// Advisor rules. Thresholds follow the teaching notes: waiting on data for a third of the step
// three logging intervals running means the loader, not the model, sets the pace.
#include "train/advisor.h"

#include <cmath>
#include <cstdio>

namespace tb {

namespace {
constexpr double kStarvedShare = 0.3;
constexpr int kStarvedIntervals = 3;
constexpr int kSkippedSteps = 5;
} // namespace

std::optional<AdviceEvent> Advisor::fire(const std::string& rule, const std::string& message,
                                         const StepEvent& step) {
    if (!m_fired.insert(rule).second)
        return std::nullopt;
    return AdviceEvent{rule, message, step.step, step.unixTime};
}

std::optional<AdviceEvent> Advisor::onStep(const StepEvent& step) {
    if (!std::isfinite(step.loss))
        return fire("nan-loss",
                    "the loss became " + std::string(std::isnan(step.loss) ? "NaN" : "infinite") +
                        ": lower lr (or add warmup_steps), and check the data for bad values",
                    step);
    m_skippedInARow = step.skipped ? m_skippedInARow + 1 : 0;
    if (m_skippedInARow >= kSkippedSteps)
        return fire("fp16-overflow",
                    "the GradScaler skipped " + std::to_string(m_skippedInARow) +
                        " logged steps in a row: fp16 keeps overflowing. Try precision=bf16-mixed "
                        "(fp32's range) or a lower lr",
                    step);
    const bool starved = step.stepMs > 0 && step.dataWaitMs > kStarvedShare * step.stepMs;
    m_starvedIntervals = starved ? m_starvedIntervals + 1 : 0;
    if (m_starvedIntervals >= kStarvedIntervals) {
        char share[16];
        std::snprintf(share, sizeof share, "%.0f%%", 100.0 * step.dataWaitMs / step.stepMs);
        const std::string fix =
            m_context.numWorkers == 0
                ? "set num_workers to 2 or more so batches are prepared while the model trains"
                : "raise num_workers above " + std::to_string(m_context.numWorkers) +
                      ", preload the dataset into RAM, or put it on faster storage";
        std::string message =
            "the step loop waits for data " + std::string(share) + " of the time: " + fix;
        if (m_context.device != "cpu")
            message += "; pin_memory=true lets the copy to the GPU overlap compute";
        return fire("data-starved", message, step);
    }
    return std::nullopt;
}

} // namespace tb

// Learning-rate schedules by optimizer step: constant, step, multistep, cosine and one-cycle,
// each with an optional linear warm-up from 0.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

struct ScheduleConfig {
    // constant | step | multistep | cosine | poly | onecycle | exponential
    std::string name = "cosine";
    int64_t warmupSteps = 0;
    int64_t stepSize = 1000;         // step: decay every stepSize steps
    std::vector<int64_t> milestones; // multistep: decay at these steps
    float gamma = 0.1f;              // step / multistep decay factor
    float minLr = 0.0f;              // cosine and poly floor; exponential's first lr
    float oneCycleDivFactor = 25.0f; // onecycle starts at lr / div
    float oneCycleFinalDiv = 1e4f;   // and ends at lr / (div * finalDiv)
    float oneCyclePctStart = 0.3f;
};

class LrSchedule {
public:
    // totalSteps: the optimizer steps the run will take (cosine and one-cycle need it).
    LrSchedule(const ScheduleConfig& config, float baseLr, int64_t totalSteps);
    // Learning rate for optimizer step `step` (0-based: the rate the first update uses is lr(0)).
    float lr(int64_t step) const;
    // How far the warm-up is at `step`: (step + 1) / warmup_steps during it, 1 after it (and for
    // one-cycle, whose rise is its own).
    float warmupFraction(int64_t step) const;

private:
    float afterWarmup(int64_t step) const;

    ScheduleConfig m_config;
    float m_base;
    int64_t m_total;
};

} // namespace tb

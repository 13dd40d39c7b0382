// Learning-rate schedules, following torch.optim.lr_scheduler's formulas by step.
#include "optim/lrschedule.h"

#include "core/errors.h"

#include <algorithm>
#include <cmath>

namespace tb {

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr double kPolyPower = 0.9;
} // namespace

LrSchedule::LrSchedule(const ScheduleConfig& config, float baseLr, int64_t totalSteps)
    : m_config(config), m_base(baseLr), m_total(std::max<int64_t>(totalSteps, 1)) {
    static const char* known[] = {"constant", "step",     "multistep",  "cosine",
                                  "poly",     "onecycle", "exponential"};
    if (std::find(std::begin(known), std::end(known), config.name) == std::end(known))
        throw ConfigError("lr_schedule", "'" + config.name +
                                             "' must be constant, step, multistep, cosine, "
                                             "poly, onecycle or exponential");
    if (config.name == "exponential" && !(config.minLr > 0.0f && config.minLr < baseLr))
        throw ConfigError("min_lr", "the exponential schedule rises from min_lr to lr: min_lr "
                                    "must be above 0 and below lr");
}

float LrSchedule::warmupFraction(int64_t step) const {
    if (m_config.name != "onecycle" && step < m_config.warmupSteps)
        return static_cast<float>(step + 1) / static_cast<float>(m_config.warmupSteps);
    return 1.0f;
}

float LrSchedule::lr(int64_t step) const {
    if (m_config.name != "onecycle" && step < m_config.warmupSteps)
        return m_base * static_cast<float>(step + 1) / static_cast<float>(m_config.warmupSteps);
    return afterWarmup(step);
}

float LrSchedule::afterWarmup(int64_t step) const {
    const int64_t t = step - (m_config.name == "onecycle" ? 0 : m_config.warmupSteps);
    const int64_t span = std::max<int64_t>(m_total - m_config.warmupSteps, 1);
    if (m_config.name == "step")
        return m_base * std::pow(m_config.gamma, static_cast<float>(t / m_config.stepSize));
    if (m_config.name == "multistep") {
        const auto passed = std::count_if(m_config.milestones.begin(), m_config.milestones.end(),
                                          [&](int64_t m) { return step >= m; });
        return m_base * std::pow(m_config.gamma, static_cast<float>(passed));
    }
    if (m_config.name == "cosine") {
        const double progress = std::min(1.0, static_cast<double>(t) / static_cast<double>(span));
        return m_config.minLr + (m_base - m_config.minLr) *
                                    static_cast<float>(0.5 * (1.0 + std::cos(kPi * progress)));
    }
    if (m_config.name == "poly") {
        // torch.optim.lr_scheduler.PolynomialLR(power=0.9), as torchvision's segmentation
        // reference and MMSegmentation train (MMSegmentation's floor is min_lr).
        const double progress = std::min(1.0, static_cast<double>(t) / static_cast<double>(span));
        return m_config.minLr +
               (m_base - m_config.minLr) * static_cast<float>(std::pow(1.0 - progress, kPolyPower));
    }
    if (m_config.name == "exponential") {
        // The learning-rate range test: min_lr at the first step to lr at the last, evenly
        // spaced on a log scale.
        const double progress =
            m_total > 1 ? std::min(1.0, static_cast<double>(t) / static_cast<double>(m_total - 1))
                        : 1.0;
        return static_cast<float>(m_config.minLr *
                                  std::pow(static_cast<double>(m_base) / m_config.minLr, progress));
    }
    if (m_config.name == "onecycle") {
        // torch.optim.lr_scheduler.OneCycleLR with cosine annealing in both phases.
        const double up = m_config.oneCyclePctStart * static_cast<double>(m_total) - 1.0;
        const double down = static_cast<double>(m_total) - 1.0;
        const double start = m_base / m_config.oneCycleDivFactor;
        const double end = start / m_config.oneCycleFinalDiv;
        const auto anneal = [](double from, double to, double pct) {
            return to + (from - to) / 2.0 * (std::cos(kPi * pct) + 1.0);
        };
        const double s = static_cast<double>(step);
        if (s <= up)
            return static_cast<float>(anneal(start, m_base, up > 0 ? s / up : 1.0));
        return static_cast<float>(anneal(m_base, end, std::min(1.0, (s - up) / (down - up))));
    }
    return m_base;
}

} // namespace tb

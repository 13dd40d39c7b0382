// Advisor rules. Thresholds follow the teaching notes: waiting on data for a third of the step,
// or a GPU busy less than half the time, three logging intervals running means the loader, not
// the model, sets the pace; a loss or a speed is judged on a few intervals, never one.
#include "train/advisor.h"

#include "core/errors.h"
#include "core/textformat.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

namespace tb {

namespace {
constexpr double kStarvedShare = 0.3;
constexpr double kIdleGpuPercent = 50.0;
constexpr int kPersistentIntervals = 3; // a condition counts once it held this many intervals
constexpr int kSkippedSteps = 5;
constexpr double kMemoryFullShare = 0.9;
constexpr double kLossSmoothing = 0.8;   // of the interval means
constexpr int kLossWarmupIntervals = 5;  // before a loss can be said to rise
constexpr double kDivergedFactor = 2.0;  // the smoothed loss over twice its lowest
constexpr size_t kSpeedWindow = 5;       // intervals per throughput window (its median counts)
constexpr int kSpeedWarmupIntervals = 2; // each epoch's first intervals restart the loader
constexpr double kDroppedShare = 0.7;    // below 70% of the fastest window: a drop of 30%+
constexpr int kDropIntervals = 10;       // "lasts": ten logging intervals running

std::string percent(double share) {
    char text[16];
    std::snprintf(text, sizeof text, "%.0f%%", 100.0 * share);
    return text;
}

std::string fixed(double value, int decimals) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

const GpuSample* gpuOf(const std::optional<SystemSample>& sample, const std::string& device) {
    if (!sample || device.rfind("cuda:", 0) != 0)
        return nullptr;
    const int index = std::atoi(device.c_str() + 5);
    for (const GpuSample& g : sample->gpus)
        if (g.index == index)
            return &g;
    return nullptr;
}
} // namespace

std::string conceptCardOfRule(const std::string& rule) {
    if (rule == "low-gpu-util")
        return "data-starved";
    if (rule == "diverging")
        return "nan-loss";
    if (rule == "fp16-overflow")
        return "precision";
    if (rule == "cpu-with-gpu")
        return "device";
    return rule; // data-starved, nan-loss, memory-full, throughput-drop
}

void Advisor::fire(const std::string& rule, const std::string& message, const StepEvent& step,
                   std::vector<AdviceEvent>& out) {
    if (m_fired.insert(rule).second)
        out.push_back(AdviceEvent{rule, message, step.step, step.unixTime});
}

std::vector<AdviceEvent> Advisor::onStep(const StepEvent& step,
                                         const std::optional<SystemSample>& latest) {
    std::vector<AdviceEvent> out;
    if (m_context.device == "cpu" && m_context.gpuUsable)
        fire("cpu-with-gpu",
             "training on the CPU while " +
                 (m_context.gpuName.empty() ? std::string("a GPU") : m_context.gpuName) +
                 " is usable: device=auto (or cuda:0) trains the same run on it, typically "
                 "10 to 50 times faster",
             step, out);
    checkLoss(step, out);
    m_skippedInARow = step.skipped ? m_skippedInARow + 1 : 0;
    if (m_skippedInARow >= kSkippedSteps)
        fire("fp16-overflow",
             "the GradScaler skipped " + std::to_string(m_skippedInARow) +
                 " logged steps in a row: fp16 keeps overflowing. Try precision=bf16-mixed "
                 "(fp32's range) or a lower lr",
             step, out);
    checkDataStarved(step, latest, out);
    checkMemory(step, latest, out);
    checkThroughput(step, out);
    return out;
}

void Advisor::checkLoss(const StepEvent& step, std::vector<AdviceEvent>& out) {
    if (!std::isfinite(step.loss)) {
        fire("nan-loss",
             "the loss became " + std::string(std::isnan(step.loss) ? "NaN" : "infinite") +
                 ": lower lr (or add warmup_steps), and check the data for bad values",
             step, out);
        return;
    }
    m_lossWeight = kLossSmoothing * m_lossWeight + (1.0 - kLossSmoothing);
    m_lossAverage = kLossSmoothing * m_lossAverage + (1.0 - kLossSmoothing) * step.loss;
    const double smoothed = m_lossAverage / m_lossWeight; // debiased, as TensorBoard's
    if (++m_intervals == 1)
        m_firstLoss = smoothed;
    if (m_intervals == 1 || smoothed < m_lowestLoss) {
        m_lowestLoss = smoothed;
        m_lowestStep = step.step;
    }
    const bool rising = m_intervals > kLossWarmupIntervals &&
                        smoothed > kDivergedFactor * m_lowestLoss && smoothed > m_firstLoss;
    m_risingIntervals = rising ? m_risingIntervals + 1 : 0;
    if (m_risingIntervals >= kPersistentIntervals)
        fire("diverging",
             "the loss is diverging: " + fixed(smoothed, 3) + " (smoothed) at step " +
                 std::to_string(step.step) + ", up from " + fixed(m_lowestLoss, 3) + " at step " +
                 std::to_string(m_lowestStep) + ". Lower lr, add warmup_steps, or clip gradients",
             step, out);
}

void Advisor::checkDataStarved(const StepEvent& step, const std::optional<SystemSample>& latest,
                               std::vector<AdviceEvent>& out) {
    const bool starved = step.stepMs > 0 && step.dataWaitMs > kStarvedShare * step.stepMs;
    m_starvedIntervals = starved ? m_starvedIntervals + 1 : 0;
    const std::string fix =
        m_context.numWorkers == 0
            ? "set num_workers to 2 or more so batches are prepared while the model trains"
            : "raise num_workers above " + std::to_string(m_context.numWorkers) +
                  ", preload the dataset into RAM, or put it on faster storage";
    const std::string pinned = m_context.device == "cpu"
                                   ? std::string()
                                   : "; pin_memory=true lets the copy to the GPU overlap compute";
    if (m_starvedIntervals >= kPersistentIntervals)
        fire("data-starved",
             "the step loop waits for data " + percent(step.dataWaitMs / step.stepMs) +
                 " of the time: " + fix + pinned,
             step, out);

    const GpuSample* gpu = gpuOf(latest, m_context.device);
    const bool idle = gpu && gpu->utilPercent && *gpu->utilPercent < kIdleGpuPercent;
    m_idleGpuIntervals = idle ? m_idleGpuIntervals + 1 : 0;
    if (m_idleGpuIntervals >= kPersistentIntervals)
        fire("low-gpu-util",
             "the GPU is busy only " + fixed(*gpu->utilPercent, 0) +
                 "% of the time: the host does not keep it fed. " +
                 (starved ? "Data loading is the bottleneck: " + fix + pinned
                          : std::string("A larger batch_size gives it more work per launch; "
                                        "pin_memory=true and num_workers help the input side")),
             step, out);
}

void Advisor::checkMemory(const StepEvent& step, const std::optional<SystemSample>& latest,
                          std::vector<AdviceEvent>& out) {
    uint64_t used = 0, total = 0;
    std::string where;
    if (const GpuSample* gpu = gpuOf(latest, m_context.device)) {
        used = gpu->memUsedBytes.value_or(0);
        total = gpu->memTotalBytes.value_or(0);
        where = m_context.device + " memory";
    } else if (latest && m_context.device == "cpu") {
        used = latest->host.ramUsedBytes.value_or(0);
        total = latest->host.ramTotalBytes.value_or(0);
        where = "host RAM";
    }
    if (total == 0 || static_cast<double>(used) < kMemoryFullShare * static_cast<double>(total))
        return;
    fire("memory-full",
         where + " is " + percent(static_cast<double>(used) / static_cast<double>(total)) +
             " full (" + formatBytes(used) + " of " + formatBytes(total) +
             "): a larger batch or model will not fit. Lower batch_size and raise "
             "accumulate_grad_batches for the same effective batch" +
             (m_context.precision == "32" ? ", or train in bf16-mixed" : std::string()),
         step, out);
}

Advisor::StepParts Advisor::meanOf(const std::deque<StepEvent>& window) {
    StepParts p;
    for (const StepEvent& e : window) {
        p.dataWait += e.dataWaitMs;
        p.h2d += e.h2dMs;
        p.forward += e.forwardMs;
        p.backward += e.backwardMs;
        p.optimizer += e.optimizerMs;
        p.other += std::max(0.0, e.stepMs - e.dataWaitMs - e.h2dMs - e.forwardMs - e.backwardMs -
                                     e.optimizerMs);
    }
    const auto n = static_cast<double>(window.size());
    for (double* v : {&p.dataWait, &p.h2d, &p.forward, &p.backward, &p.optimizer, &p.other})
        *v /= n;
    // The speed is the window's median: one interval that a busy moment slowed moves it not.
    std::vector<double> speeds;
    for (const StepEvent& e : window)
        speeds.push_back(e.samplesPerSec);
    const auto middle = speeds.begin() + static_cast<std::ptrdiff_t>(speeds.size() / 2);
    std::nth_element(speeds.begin(), middle, speeds.end());
    p.samplesPerSec = *middle;
    p.step = window.back().step;
    return p;
}

void Advisor::checkThroughput(const StepEvent& step, std::vector<AdviceEvent>& out) {
    if (step.epoch != m_speedEpoch) { // a new epoch: its loader starts over
        m_speedEpoch = step.epoch;
        m_epochIntervals = 0;
    }
    if (++m_epochIntervals <= kSpeedWarmupIntervals || step.samplesPerSec <= 0.0)
        return;
    m_window.push_back(step);
    if (m_window.size() > kSpeedWindow)
        m_window.pop_front();
    if (m_window.size() < kSpeedWindow)
        return;
    const StepParts now = meanOf(m_window);
    if (!m_fastest || now.samplesPerSec > m_fastest->samplesPerSec)
        m_fastest = now;
    const bool slow = now.samplesPerSec < kDroppedShare * m_fastest->samplesPerSec;
    m_slowIntervals = slow ? m_slowIntervals + 1 : 0;
    if (m_slowIntervals < kDropIntervals)
        return;
    const StepParts& was = *m_fastest;
    const std::array<std::pair<const char*, double>, 6> grew{{
        {"data wait", now.dataWait - was.dataWait},
        {"host-to-device copy", now.h2d - was.h2d},
        {"forward", now.forward - was.forward},
        {"backward", now.backward - was.backward},
        {"optimizer", now.optimizer - was.optimizer},
        {"the rest of the step", now.other - was.other},
    }};
    const auto most = std::max_element(
        grew.begin(), grew.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    const std::string part = most->first;
    const double partWas = std::array{was.dataWait, was.h2d,       was.forward,
                                      was.backward, was.optimizer, was.other}[most - grew.begin()];
    std::string why;
    if (part == "data wait")
        why = "the loader fell behind: storage, or other programs on the CPU";
    else if (m_context.device == "cpu")
        why = "on the CPU a late slowdown of the arithmetic is often denormal floats "
              "(flush_denormals=true flushes them), or other programs on the cores";
    else
        why = "a GPU that slows down is often throttled by heat or power: see the hardware "
              "chart";
    fire("throughput-drop",
         "throughput fell " + percent(1.0 - now.samplesPerSec / was.samplesPerSec) + " (" +
             formatCount(std::llround(was.samplesPerSec)) + " to " +
             formatCount(std::llround(now.samplesPerSec)) + " samples/s since step " +
             std::to_string(was.step) + ") and stayed down: " + part + " grew most, " +
             fixed(partWas, 2) + " to " + fixed(partWas + most->second, 2) + " ms per step; " + why,
         step, out);
}

} // namespace tb

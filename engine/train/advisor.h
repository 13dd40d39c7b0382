// The advisor: rules that watch a run's logged intervals (and the latest telemetry sample) and
// explain what they see, each once per run: a data-starved loop or an idle GPU, memory nearly
// full, a loss that became NaN or diverges, fp16 overflow that does not settle, the CPU training
// while a usable GPU waits, a throughput drop that lasts (naming the part of the step that grew).
#pragma once

#include "core/systemsample.h"
#include "events/events.h"

#include <deque>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tb {

struct AdvisorContext {
    int numWorkers = 0;
    std::string precision = "32";
    std::string device = "cpu"; // the device that trains: "cpu" or "cuda:N"
    // A GPU this machine could train on (probeCuda().usable), named for the message.
    bool gpuUsable = false;
    std::string gpuName;
};

// The concept card that explains a rule's advice ("low-gpu-util" -> "data-starved").
std::string conceptCardOfRule(const std::string& rule);

class Advisor {
public:
    explicit Advisor(AdvisorContext context) : m_context(std::move(context)) {}
    // Advice for this logged interval, from rules that fire for the first time. `latest` is
    // the newest system sample while the run trains (absent without telemetry).
    std::vector<AdviceEvent> onStep(const StepEvent& step,
                                    const std::optional<SystemSample>& latest = std::nullopt);

private:
    void fire(const std::string& rule, const std::string& message, const StepEvent& step,
              std::vector<AdviceEvent>& out);
    void checkLoss(const StepEvent& step, std::vector<AdviceEvent>& out);
    void checkDataStarved(const StepEvent& step, const std::optional<SystemSample>& latest,
                          std::vector<AdviceEvent>& out);
    void checkMemory(const StepEvent& step, const std::optional<SystemSample>& latest,
                     std::vector<AdviceEvent>& out);
    void checkThroughput(const StepEvent& step, std::vector<AdviceEvent>& out);

    // A window of intervals: its median samples/s and mean step-time parts (ms per step).
    struct StepParts {
        double samplesPerSec = 0.0, dataWait = 0.0, h2d = 0.0, forward = 0.0, backward = 0.0,
               optimizer = 0.0, other = 0.0;
        int64_t step = 0; // the window's last step
    };
    static StepParts meanOf(const std::deque<StepEvent>& window);

    AdvisorContext m_context;
    std::set<std::string> m_fired;
    int m_starvedIntervals = 0;
    int m_idleGpuIntervals = 0;
    int m_skippedInARow = 0;
    // Diverging loss: the debiased moving average, its lowest value and where it started.
    double m_lossAverage = 0.0, m_lossWeight = 0.0;
    double m_lowestLoss = 0.0, m_firstLoss = 0.0;
    int64_t m_lowestStep = 0;
    int m_intervals = 0, m_risingIntervals = 0;
    // Throughput drop: the last few intervals, and the fastest window seen so far.
    std::deque<StepEvent> m_window;
    std::optional<StepParts> m_fastest;
    int m_slowIntervals = 0;
    int64_t m_speedEpoch = 0;
    int m_epochIntervals = 0;
};

} // namespace tb

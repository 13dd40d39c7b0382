// The advisor: rules that watch a run's step events and explain what they see, once each
// (a data-starved step loop, fp16 overflow that does not settle, a loss that became NaN).
#pragma once

#include "events/events.h"

#include <optional>
#include <set>
#include <string>

namespace tb {

struct AdvisorContext {
    int numWorkers = 0;
    std::string precision = "32";
    std::string device = "cpu";
};

class Advisor {
public:
    explicit Advisor(AdvisorContext context) : m_context(std::move(context)) {}
    // Advice for this step event, if a rule fires for the first time.
    std::optional<AdviceEvent> onStep(const StepEvent& step);

private:
    std::optional<AdviceEvent> fire(const std::string& rule, const std::string& message,
                                    const StepEvent& step);

    AdvisorContext m_context;
    std::set<std::string> m_fired;
    int m_starvedIntervals = 0;
    int m_skippedInARow = 0;
};

} // namespace tb

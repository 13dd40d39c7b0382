#include "support/runlog.h"

namespace tb::test {

void RunLog::onEvent(const Event& e) {
    if (const auto* r = std::get_if<RunStartedEvent>(&e))
        starts.push_back(*r);
    else if (const auto* s = std::get_if<StepEvent>(&e))
        steps.push_back(*s);
    else if (const auto* ep = std::get_if<EpochEvent>(&e))
        epochs.push_back(*ep);
    else if (const auto* l = std::get_if<LogEvent>(&e))
        logs.push_back(l->message);
    else if (const auto* a = std::get_if<AdviceEvent>(&e))
        advice.push_back(*a);
    else if (const auto* p = std::get_if<ProfileEvent>(&e))
        profiles.push_back(p->report);
}

namespace {

template <typename Event, typename Field>
std::vector<double> column(const std::vector<Event>& events, Field field) {
    std::vector<double> out;
    out.reserve(events.size());
    for (const Event& e : events)
        out.push_back(e.*field);
    return out;
}

} // namespace

std::vector<double> RunLog::losses() const {
    return column(steps, &StepEvent::loss);
}
std::vector<double> RunLog::valLosses() const {
    return column(epochs, &EpochEvent::valLoss);
}
std::vector<double> RunLog::valAccs() const {
    return column(epochs, &EpochEvent::valAcc);
}
std::vector<double> RunLog::trainAccs() const {
    return column(epochs, &EpochEvent::trainAcc);
}

} // namespace tb::test

// An EventSink that keeps what a Trainer run reported on the calling thread, for tests.
#pragma once

#include "events/events.h"

#include <string>
#include <vector>

namespace tb::test {

class RunLog final : public EventSink {
public:
    void onEvent(const Event& e) override;

    std::vector<double> losses() const;    // each logged interval's training loss
    std::vector<double> valLosses() const; // each epoch's validation loss
    std::vector<double> valAccs() const;
    std::vector<double> trainAccs() const;

    std::vector<RunStartedEvent> starts;
    std::vector<StepEvent> steps;
    std::vector<EpochEvent> epochs;
    std::vector<std::string> logs;
    std::vector<AdviceEvent> advice;
    std::vector<ProfileReport> profiles;
};

} // namespace tb::test

// Runs an experiment: each arm, each repeat, one after another on the calling thread, as short
// runs of the same run session the CLI and the window train with, each recorded and tagged
// "experiment:<id>" and "arm:<label>" so the runs comparison can show the arms overlaid.
#pragma once

#include "experiments/experimentconclusion.h"
#include "session/runsession.h"

#include <functional>
#include <stop_token>
#include <string>
#include <vector>

namespace tb {

struct ExperimentOptions {
    RunSessionOptions session; // the store to record in, the sampler, notices
    // Events of every arm's runs (not owned; may be empty), e.g. a progress printer.
    std::vector<EventSink*> sinks;
    // After each repeat: the arm's index and what it measured.
    std::function<void(std::size_t arm, const ArmRepeat&)> onRepeat;
    // Where a preset with "images" writes the set-up's images (experimentimages.h); empty:
    // defaultExportsRoot().
    std::string exportsRoot;
    // Before the first arm, with what the arms train on when the preset chose it (its "images").
    std::function<void(const std::string& note)> onData;
};

struct ExperimentResult {
    std::vector<ArmResult> arms;
    std::string conclusion;
    bool stopped = false; // cancelled: the arms are what ran before
};

// Trains the arms on `base` (repeat r with seed base.seed + r), or on its images as files when
// the preset asks for them (experimentData(); the conclusion then begins with why); a stop
// request ends the repeat in progress and the experiment. An arm whose run fails is reported in
// its repeats (and in the conclusion), not thrown; images that cannot be written are thrown.
ExperimentResult runExperiment(const ExperimentPreset& preset, const RunConfig& base,
                               const ExperimentOptions& options, std::stop_token stop = {});

// One repeat's figures from the events of its run.
ArmRepeat measureRepeat(const std::vector<StepEvent>& steps, const RunFinishedEvent& finished);

} // namespace tb

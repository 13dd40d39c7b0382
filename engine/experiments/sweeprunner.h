// Runs a sweep's trials as runs of the same run session the CLI and the window train with, one
// after another or several at once (splitting the cores), each recorded and tagged
// "sweep:<name>" and "trial:<index>", so the runs comparison applies to them. A sweep run again
// with the same store resumes: trials whose run completed (or that halving stopped, tagged
// "halted") are not trained again, the others are.
#pragma once

#include "experiments/sweepdefinition.h"
#include "session/runsession.h"

#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace tb {

struct SweepTrialOutcome {
    SweepTrial trial;
    std::string runId;
    RunStatus status = RunStatus::Failed;
    std::optional<double> metric;    // the sweep's metric, as the store recorded it
    bool fromEarlier = false;        // completed by an earlier, interrupted invocation
    std::optional<int64_t> haltedAt; // halving stopped it after this many epochs or steps
    std::string error;
};

struct SweepOptions {
    RunSessionOptions session; // the store (required: it is how a sweep resumes), notices
    // Every trial's events (not owned; may be empty); with parallel > 1, from several threads.
    std::vector<EventSink*> sinks;
    // Trials trained at once; when the config leaves threads at 0 (one per core), each trial
    // takes an equal share of the cores.
    int parallel = 1;
    // Before a trial trains (with its run id), and once it has an outcome: one call at a time,
    // from the thread that trained it (the calling one when parallel is 1).
    std::function<void(const SweepTrial&, const std::string& runId)> onStart;
    std::function<void(const SweepTrialOutcome&)> onTrial;
};

struct SweepResult {
    std::vector<SweepTrialOutcome> trials; // in trial order; a stopped sweep lists those done
    bool stopped = false;
};

// The tags of a sweep's runs.
std::string sweepTag(const SweepDefinition& sweep);
std::string trialTag(const SweepTrial& trial);

// The tag of a trial that halving stopped early.
inline constexpr const char* kHaltedTag = "halted";

// Trains the trials not completed before; a stop request ends the trial in progress (its run
// is recorded as stopped and trained again on resume) and the sweep. Throws ConfigError
// ("--db") without a store, StoreError when the store cannot be read.
SweepResult runSweep(const SweepDefinition& sweep, const SweepOptions& options,
                     std::stop_token stop = {});

// The trials that completed with a metric, best first by the sweep's goal (those halving
// stopped had a smaller budget, so they are not ranked against them).
std::vector<SweepTrialOutcome> rankedTrials(const SweepDefinition& sweep,
                                            const SweepResult& result);

} // namespace tb

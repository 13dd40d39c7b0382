// Runs a sweep's trials one after another as runs of the same run session the CLI and the
// window train with, each recorded and tagged "sweep:<name>" and "trial:<index>", so the runs
// comparison applies to them. A sweep run again with the same store resumes: trials whose run
// completed are not trained again (their recorded metric counts), the others are.
#pragma once

#include "experiments/sweepdefinition.h"
#include "session/runsession.h"

#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace tb {

struct RunRecord;

struct SweepTrialOutcome {
    SweepTrial trial;
    std::string runId;
    RunStatus status = RunStatus::Failed;
    std::optional<double> metric; // the sweep's metric, as the store recorded it
    bool fromEarlier = false;     // completed by an earlier, interrupted invocation
    std::string error;
};

struct SweepOptions {
    RunSessionOptions session;     // the store (required: it is how a sweep resumes), notices
    std::vector<EventSink*> sinks; // every trial's events (not owned; may be empty)
    // Before a trial trains, and once it has an outcome (on the calling thread).
    std::function<void(const SweepTrial&)> onStart;
    std::function<void(const SweepTrialOutcome&)> onTrial;
};

struct SweepResult {
    std::vector<SweepTrialOutcome> trials; // in trial order; a stopped sweep lists those done
    bool stopped = false;
};

// The tags of a sweep's runs.
std::string sweepTag(const SweepDefinition& sweep);
std::string trialTag(const SweepTrial& trial);

// A recorded run's value of a sweep metric (sweepMetrics()), when it has one.
std::optional<double> sweepMetricOf(const RunRecord& run, const std::string& metric);

// Trains the trials not completed before; a stop request ends the trial in progress (its run
// is recorded as stopped and trained again on resume) and the sweep. Throws ConfigError
// ("--db") without a store, StoreError when the store cannot be read.
SweepResult runSweep(const SweepDefinition& sweep, const SweepOptions& options,
                     std::stop_token stop = {});

// The trials with a metric, best first by the sweep's goal.
std::vector<SweepTrialOutcome> rankedTrials(const SweepDefinition& sweep,
                                            const SweepResult& result);

} // namespace tb

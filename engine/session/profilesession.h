// A measurement run for the layer profiler: the set-up trained for a few warm-up steps, the
// next N profiled layer by layer, then N more unprofiled, whose mean step time says what
// profiling cost. What `trainbench-cli profile` runs, and the window when it profiles a stored
// run again from its checkpoint.
#pragma once

#include "events/profilereport.h"
#include "session/runsession.h"
#include "train/runconfig.h"

#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace tb {

struct ProfileRunOptions {
    int steps = 20;
    int warmup = 5;
    // Train `steps` more after the profile, unprofiled: what profiling cost.
    bool timeUnprofiled = true;
    // A stored run's checkpoint: its config is the one measured (runProfile's caller reads it
    // with Trainer::configFromCheckpoint) and its weights are the ones trained, not its optimizer
    // state or position; nothing is written beside it.
    std::string weightsFrom;
    // databasePath: record the measurement as a run of its own (never with weightsFrom).
    RunSessionOptions session;
};

struct ProfileRunResult {
    RunFinishedEvent finished;
    std::optional<ProfileReport> report; // none when the run ended before a profiled step
    double unprofiledStepMs = 0.0;       // mean over the steps after the profile
    int unprofiledSteps = 0;
    // What profiling cost: the profiled steps' mean time over the unprofiled ones', less one
    // (0 when either is missing).
    double costFraction() const;
};

// Trains `config` for warmup + 2 x steps optimizer steps (warmup + steps without
// timeUnprofiled; whatever its epochs say), profiling steps warmup+1 to warmup+steps. Events go to
// `sinks` as a run's do. Throws ConfigError for a config that cannot run; a run that fails says so
// in result.finished.
ProfileRunResult runProfile(RunConfig config, const ProfileRunOptions& options,
                            const std::vector<EventSink*>& sinks = {}, std::stop_token stop = {});

} // namespace tb

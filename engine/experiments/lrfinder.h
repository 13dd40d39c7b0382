// The learning-rate finder: the range test of Leslie Smith ("Cyclical Learning Rates for
// Training Neural Networks", 2017) as fastai's lr_find runs it. A short run whose lr rises
// exponentially from min_lr to max_lr records the loss at every step; the loss is smoothed
// (debiased EMA) and the suggestion is the lr where it falls fastest against log lr, before
// its minimum. The sweep stops once the smoothed loss exceeds 4x its best (it diverged).
#pragma once

#include "session/runsession.h"

#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace tb {

struct LrFinderOptions {
    double minLr = 1e-7;
    double maxLr = 10.0;
    int steps = 200;
    double divergeFactor = 4.0;
    double smoothing = 0.9; // the EMA weight of the loss curve
};

struct LrFinderResult {
    std::string runId;
    std::vector<double> lr, loss, smoothed; // one per optimizer step
    std::optional<double> suggested;
    std::string method; // how the suggestion was found, or why there is none
    bool diverged = false;
    bool stopped = false;
};

// The steepest descent of `smoothed` against log(lr), between the first tenth of the sweep
// (the loss has not moved yet) and the smoothed minimum; nullopt when the loss never falls.
std::optional<double> suggestLearningRate(const std::vector<double>& lr,
                                          const std::vector<double>& smoothed);

// Runs the sweep on `base` (its model, data and optimizer; the lr schedule is the sweep's),
// recorded as a run tagged "lr-find" when session.databasePath is set.
LrFinderResult findLearningRate(const RunConfig& base, const LrFinderOptions& options,
                                const RunSessionOptions& session,
                                std::vector<EventSink*> sinks = {}, std::stop_token stop = {});

} // namespace tb

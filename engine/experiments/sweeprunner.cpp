// runSweep: the store says which trials are done; a RunSession trains each of the others.
#include "experiments/sweeprunner.h"

#include "core/errors.h"
#include "store/runstore.h"

#include <algorithm>
#include <map>

namespace tb {

std::string sweepTag(const SweepDefinition& sweep) {
    return "sweep:" + sweep.name;
}

std::string trialTag(const SweepTrial& trial) {
    return "trial:" + std::to_string(trial.index);
}

std::optional<double> sweepMetricOf(const RunRecord& run, const std::string& metric) {
    if (metric == "best_val_acc")
        return run.bestValAcc;
    if (metric == "final_val_acc")
        return run.finalValAcc;
    if (metric == "final_val_loss")
        return run.finalValLoss;
    if (metric == "final_train_loss")
        return run.finalTrainLoss;
    if (metric == "samples_per_s")
        return run.meanSamplesPerSec;
    if (metric == "peak_memory_mb" && run.peakMemoryBytes)
        return static_cast<double>(*run.peakMemoryBytes) / (1024.0 * 1024.0);
    if (metric == "duration_s")
        return run.durationSec;
    return std::nullopt;
}

SweepResult runSweep(const SweepDefinition& sweep, const SweepOptions& options,
                     std::stop_token stop) {
    if (options.session.databasePath.empty())
        throw ConfigError("--db", "a sweep records its trials in the run store (that is how it "
                                  "resumes): leave out --no-db");
    // The completed runs of an earlier invocation, by run name: "<sweep> #<index>: <label>"
    // (a trial whose values changed since is another trial, trained anew).
    std::map<std::string, RunRecord> done;
    {
        RunFilter filter;
        filter.tag = sweepTag(sweep);
        filter.status = RunStatus::Completed;
        for (RunRecord& r : RunStore(options.session.databasePath).listRuns(filter))
            done.emplace(r.name, std::move(r));
    }
    SweepResult result;
    for (const SweepTrial& trial : sweepTrials(sweep)) {
        const std::string name =
            sweep.name + " #" + std::to_string(trial.index) + ": " + trial.label();
        SweepTrialOutcome outcome;
        outcome.trial = trial;
        if (const auto it = done.find(name); it != done.end()) {
            outcome.runId = it->second.id;
            outcome.status = RunStatus::Completed;
            outcome.metric = sweepMetricOf(it->second, sweep.metric.name);
            outcome.fromEarlier = true;
        } else {
            if (stop.stop_requested()) {
                result.stopped = true;
                break;
            }
            if (options.onStart)
                options.onStart(trial);
            RunConfig config = trialConfig(sweep, trial);
            config.set("name", name);
            config.set("tags", sweepTag(sweep) + "," + trialTag(trial));
            RunFinishedEvent finished;
            try {
                RunSession session(config, options.session, options.sinks);
                outcome.runId = session.runId();
                finished = session.run(stop);
            } catch (const Error& e) {
                finished.status = RunStatus::Failed;
                finished.error = e.what();
            }
            outcome.status = finished.status;
            outcome.error = finished.error;
            if (finished.status == RunStatus::Stopped) {
                result.stopped = true;
                break;
            }
            if (!outcome.runId.empty() && finished.status == RunStatus::Completed)
                outcome.metric =
                    sweepMetricOf(RunStore(options.session.databasePath).getRun(outcome.runId),
                                  sweep.metric.name);
        }
        if (options.onTrial)
            options.onTrial(outcome);
        result.trials.push_back(std::move(outcome));
    }
    return result;
}

std::vector<SweepTrialOutcome> rankedTrials(const SweepDefinition& sweep,
                                            const SweepResult& result) {
    std::vector<SweepTrialOutcome> ranked;
    for (const SweepTrialOutcome& t : result.trials)
        if (t.metric)
            ranked.push_back(t);
    std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
        return sweep.metric.maximize ? *a.metric > *b.metric : *a.metric < *b.metric;
    });
    return ranked;
}

} // namespace tb

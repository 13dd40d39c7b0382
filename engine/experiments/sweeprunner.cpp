// runSweep: the store says which trials are done; workers take the others in trial order, each
// trained by a RunSession (and, for halving, judged at every rung by a HalvingJudge).
#include "experiments/sweeprunner.h"

#include "core/errors.h"
#include "experiments/halving.h"
#include "store/runstore.h"
#include "store/runsummary.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

namespace tb {

namespace {

std::string trialRunName(const SweepDefinition& sweep, const SweepTrial& trial) {
    return sweep.name + " #" + std::to_string(trial.index) + ": " + trial.label();
}

bool tagged(const RunRecord& run, const std::string& tag) {
    return std::binary_search(run.tags.begin(), run.tags.end(), tag);
}

// The rungs an earlier invocation's trial reached, on the ladder (in trial order, as they ran).
void recordRungs(HalvingLadder& ladder, RunStore& store, const RunRecord& run,
                 const std::string& metric) {
    const HalvingBudget& budget = ladder.budget();
    const std::vector<int64_t> rungs = budget.rungs();
    if (budget.epochs) {
        const std::vector<EpochEvent> epochs = store.epochMetrics(run.id);
        for (std::size_t r = 0; r < rungs.size(); ++r) {
            if (static_cast<int64_t>(epochs.size()) < rungs[r])
                break;
            const std::vector<EpochEvent> upTo(epochs.begin(), epochs.begin() + rungs[r]);
            if (const auto v = metricAfterEpochs(metric, upTo))
                ladder.record(r, *v);
        }
        return;
    }
    const std::vector<StepEvent> steps = store.stepMetrics(run.id);
    std::size_t r = 0;
    for (const StepEvent& s : steps)
        for (; r < rungs.size() && s.step >= rungs[r]; ++r)
            ladder.record(r, s.loss);
}

} // namespace

std::string sweepTag(const SweepDefinition& sweep) {
    return "sweep:" + sweep.name;
}

std::string trialTag(const SweepTrial& trial) {
    return "trial:" + std::to_string(trial.index);
}

SweepResult runSweep(const SweepDefinition& sweep, const SweepOptions& options,
                     std::stop_token stop) {
    const std::string& db = options.session.databasePath;
    if (db.empty())
        throw ConfigError("--db", "a sweep records its trials in the run store (that is how it "
                                  "resumes): leave out --no-db");
    if (options.parallel < 1)
        throw ConfigError("--parallel", "must be at least 1");
    if (options.parallel > 1 && sweep.base.distributed == "mpi")
        throw ConfigError("--parallel", "trials of a data-parallel (distributed=mpi) config "
                                        "train one at a time: leave --parallel at 1");
    const std::vector<SweepTrial> trials = sweepTrials(sweep);
    std::optional<HalvingLadder> ladder;
    if (sweep.method == SweepMethod::Halving)
        ladder.emplace(sweep.budget, sweep.metric.maximize);

    // The trials an earlier invocation finished, found by run name "<sweep> #<index>: <label>"
    // (a trial whose values changed since is another trial, trained anew).
    std::vector<std::optional<SweepTrialOutcome>> outcomes(trials.size());
    {
        RunStore store(db);
        RunFilter filter;
        filter.tag = sweepTag(sweep);
        std::map<std::string, RunRecord> done;
        for (RunRecord& r : store.listRuns(filter))
            if (r.status == RunStatus::Completed ||
                (r.status == RunStatus::Stopped && tagged(r, kHaltedTag)))
                done.emplace(r.name, std::move(r));
        for (const SweepTrial& trial : trials) {
            const auto it = done.find(trialRunName(sweep, trial));
            if (it == done.end())
                continue;
            const RunRecord& run = it->second;
            SweepTrialOutcome outcome;
            outcome.trial = trial;
            outcome.runId = run.id;
            outcome.status = run.status;
            outcome.fromEarlier = true;
            if (run.status == RunStatus::Completed)
                outcome.metric = summaryValue(run, sweep.metric.name);
            else
                outcome.haltedAt = ladder && ladder->budget().epochs ? run.epochs : run.steps;
            if (ladder)
                recordRungs(*ladder, store, run, sweep.metric.name);
            if (options.onTrial)
                options.onTrial(outcome);
            outcomes[static_cast<std::size_t>(trial.index)] = std::move(outcome);
        }
    }

    const std::size_t pending =
        static_cast<std::size_t>(std::count(outcomes.begin(), outcomes.end(), std::nullopt));
    const int workers =
        static_cast<int>(std::clamp<std::size_t>(pending, 1, std::size_t(options.parallel)));
    std::mutex mutex; // the callbacks and outcomes
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stopped{false};

    const auto train = [&](const SweepTrial& trial) {
        RunConfig config = trialConfig(sweep, trial);
        config.set("name", trialRunName(sweep, trial));
        config.set("tags", sweepTag(sweep) + "," + trialTag(trial));
        if (options.parallel > 1 && config.threads == 0)
            config.set("threads",
                       std::to_string(std::max(1u, std::thread::hardware_concurrency() /
                                                       static_cast<unsigned>(options.parallel))));
        // A folder the base config names is shared by every trial: each gets its own in it,
        // so one trial's checkpoint rotation never deletes another's.
        if (!config.checkpointDir.empty())
            config.set("checkpoint_dir",
                       config.checkpointDir + "/trial-" + std::to_string(trial.index));
        RunSessionOptions sessionOptions = options.session;
        sessionOptions.trainer.sharesProcess = options.parallel > 1;
        std::stop_source trialStop;
        const std::stop_callback relay(stop, [&trialStop] { trialStop.request_stop(); });
        std::optional<HalvingJudge> judge;
        std::vector<EventSink*> sinks = options.sinks;
        if (ladder)
            sinks.push_back(&judge.emplace(*ladder, sweep.metric.name, trialStop));

        SweepTrialOutcome outcome;
        outcome.trial = trial;
        RunFinishedEvent finished;
        try {
            RunSession session(config, sessionOptions, sinks);
            outcome.runId = session.runId();
            {
                const std::lock_guard lock(mutex);
                if (options.onStart)
                    options.onStart(trial, outcome.runId);
            }
            finished = session.run(trialStop.get_token());
        } catch (const Error& e) {
            finished.status = RunStatus::Failed;
            finished.error = e.what();
        }
        outcome.status = finished.status;
        outcome.error = finished.error;
        if (judge && judge->haltedAt() && finished.status == RunStatus::Stopped) {
            outcome.haltedAt = judge->haltedAt();
            RunStore(db).addTag(outcome.runId, kHaltedTag);
        } else if (finished.status == RunStatus::Stopped) {
            stopped = true; // a stop request: the trial is trained again on resume
            return;
        }
        if (!outcome.runId.empty() && finished.status == RunStatus::Completed)
            outcome.metric = summaryValue(RunStore(db).getRun(outcome.runId), sweep.metric.name);
        const std::lock_guard lock(mutex);
        if (options.onTrial)
            options.onTrial(outcome);
        outcomes[static_cast<std::size_t>(trial.index)] = std::move(outcome);
    };
    const auto work = [&] {
        for (std::size_t i; (i = next++) < trials.size();) {
            if (outcomes[i])
                continue; // outcomes[i] is only written by the worker that took i
            if (stop.stop_requested() || stopped) {
                stopped = true;
                return;
            }
            train(trials[i]);
        }
    };
    if (workers == 1) {
        work();
    } else {
        std::vector<std::jthread> threads;
        for (int w = 0; w < workers; ++w)
            threads.emplace_back(work);
    }

    SweepResult result;
    result.stopped = stopped;
    for (auto& outcome : outcomes)
        if (outcome)
            result.trials.push_back(std::move(*outcome));
    return result;
}

std::vector<SweepTrialOutcome> rankedTrials(const SweepDefinition& sweep,
                                            const SweepResult& result) {
    std::vector<SweepTrialOutcome> ranked;
    for (const SweepTrialOutcome& t : result.trials)
        if (t.metric && t.status == RunStatus::Completed)
            ranked.push_back(t);
    std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
        return sweep.metric.maximize ? *a.metric > *b.metric : *a.metric < *b.metric;
    });
    return ranked;
}

} // namespace tb

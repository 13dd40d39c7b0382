// trainbench-cli sweep: a sweep file's trials trained one after another, recorded and tagged in
// the run store, resumed where an interrupted invocation stopped, the best trials printed last.
#include "args.h"
#include "commands.h"
#include "signalstop.h"

#include "core/errors.h"
#include "experiments/sweeprunner.h"
#include "store/runstore.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace tb::cli {

namespace {

nlohmann::json trialJson(const SweepTrialOutcome& t) {
    nlohmann::json set = nlohmann::json::object();
    for (const auto& [key, value] : t.trial.set)
        set[key] = value;
    nlohmann::json j{{"index", t.trial.index},
                     {"set", set},
                     {"run_id", t.runId},
                     {"status", toString(t.status)},
                     {"resumed", t.fromEarlier}};
    j["metric"] = t.metric ? nlohmann::json(*t.metric) : nlohmann::json();
    if (!t.error.empty())
        j["error"] = t.error;
    return j;
}

} // namespace

int cmdSweep(const Argv& argv) {
    const Args args(argv, specOf("sweep"));
    if (args.flag("help") || args.positional().size() != 1) {
        std::puts(
            "usage: trainbench-cli sweep FILE [--top 5] [--db PATH] [--json] [--quiet]\n\n"
            "Trains the trials a sweep file lists (a base config, the keys to vary with their\n"
            "values or ranges, grid or seeded random search, the metric that ranks them; see\n"
            "resources/docs/sweeps.md) one after another, each a run in the store tagged\n"
            "sweep:NAME and trial:N. Run it again after an interruption (Ctrl+C, SIGTERM) and\n"
            "it trains only the trials not yet completed. The --top best trials come last.");
        return args.flag("help") ? 0 : 2;
    }
    const SweepDefinition sweep = loadSweepDefinition(args.positional()[0]);
    const auto top = static_cast<std::size_t>(args.intValue("top", 1, 1 << 20).value_or(5));
    const bool json = args.flag("json"), quiet = args.flag("quiet");
    SweepOptions options;
    options.session.databasePath = args.valueOr("db", defaultDatabasePath());
    const std::size_t total = sweepTrials(sweep).size();
    if (!quiet)
        std::fprintf(stderr, "sweep %s: %zu trials (%s), ranked by %s (%s)\n", sweep.name.c_str(),
                     total, toString(sweep.method), sweep.metric.name.c_str(),
                     sweep.metric.maximize ? "higher is better" : "lower is better");
    options.onStart = [&](const SweepTrial& t) {
        if (!quiet)
            std::fprintf(stderr, "trial %d/%zu: %s\n", t.index + 1, total, t.label().c_str());
    };
    options.onTrial = [&](const SweepTrialOutcome& t) {
        if (quiet)
            return;
        if (t.fromEarlier)
            std::fprintf(stderr, "trial %d/%zu: %s: done earlier (run %s)\n", t.trial.index + 1,
                         total, t.trial.label().c_str(), t.runId.c_str());
        else if (t.metric)
            std::fprintf(stderr, "  %s %.4g (run %s)\n", sweep.metric.name.c_str(), *t.metric,
                         t.runId.c_str());
        else
            std::fprintf(stderr, "  %s%s%s\n", toString(t.status).c_str(),
                         t.error.empty() ? "" : ": ", t.error.c_str());
    };

    const SignalStop stop;
    const SweepResult result = runSweep(sweep, options, stop.token());
    const std::vector<SweepTrialOutcome> ranked = rankedTrials(sweep, result);
    if (json) {
        nlohmann::json trials = nlohmann::json::array(), best = nlohmann::json::array();
        for (const SweepTrialOutcome& t : result.trials)
            trials.push_back(trialJson(t));
        for (std::size_t i = 0; i < std::min(top, ranked.size()); ++i)
            best.push_back(trialJson(ranked[i]));
        std::printf("%s\n",
                    nlohmann::json{{"sweep", sweep.name},
                                   {"metric", sweep.metric.name},
                                   {"goal", sweep.metric.maximize ? "maximize" : "minimize"},
                                   {"trials", trials},
                                   {"stopped", result.stopped},
                                   {"best", best}}
                        .dump()
                        .c_str());
    } else {
        std::printf("%s%zu of %zu trials done; best by %s:\n", result.stopped ? "stopped: " : "",
                    result.trials.size(), total, sweep.metric.name.c_str());
        for (std::size_t i = 0; i < std::min(top, ranked.size()); ++i)
            std::printf("  %.4g  %s  (run %s)\n", *ranked[i].metric,
                        ranked[i].trial.label().c_str(), ranked[i].runId.c_str());
    }
    return result.stopped ? 130 : 0;
}

} // namespace tb::cli

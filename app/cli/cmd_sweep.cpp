// trainbench-cli sweep: a sweep file's trials (or a grid given on the command line) trained one
// after another or N at once, recorded and tagged in the run store, resumed where an
// interrupted invocation stopped, the best trials printed last.
#include "args.h"
#include "commands.h"
#include "configargs.h"
#include "signalstop.h"

#include "core/errors.h"
#include "core/textformat.h"
#include "experiments/sweeprunner.h"
#include "store/runstore.h"
#include "train/runconfig.h"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
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
    if (t.haltedAt)
        j["halted_at"] = *t.haltedAt;
    if (!t.error.empty())
        j["error"] = t.error;
    return j;
}

// `--grid key=a,b ...` on top of --config and --set: the sweep file those would make. Its
// name (unless --name gives one) is a checksum of the grid and the base config, so the same
// command line resumes the same sweep.
SweepDefinition commandLineGrid(const Args& args) {
    RunConfig base;
    applyConfigArgs(args, base);
    nlohmann::json parameters = nlohmann::json::object();
    for (const std::string& spec : args.values("grid")) {
        const auto eq = spec.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
            throw ConfigError("--grid", "'" + spec + "' must look like key=value,value,...");
        nlohmann::json values = nlohmann::json::array();
        for (std::size_t at = eq + 1; at <= spec.size();) {
            const std::size_t comma = std::min(spec.find(',', at), spec.size());
            values.push_back(spec.substr(at, comma - at));
            at = comma + 1;
        }
        parameters[spec.substr(0, eq)] = {{"values", values}};
    }
    nlohmann::json sweep{{"method", "grid"},
                         {"config", base.toJson()},
                         {"parameters", parameters},
                         {"metric", args.valueOr("metric", "best_val_acc")}};
    if (const auto goal = args.value("goal"))
        sweep["goal"] = *goal;
    const std::string text = sweep.dump();
    sweep["name"] = args.valueOr(
        "name", formatString("grid-%08lx", crc32(0, reinterpret_cast<const Bytef*>(text.data()),
                                                 static_cast<uInt>(text.size()))));
    return parseSweepDefinition(sweep, "--grid");
}

} // namespace

int cmdSweep(const Argv& argv) {
    const Args args(argv, specOf("sweep"));
    const bool grid = !args.values("grid").empty();
    if (args.flag("help") || args.positional().size() != (grid ? 0u : 1u)) {
        std::puts(
            "usage: trainbench-cli sweep FILE [--parallel N] [--top 5] [--db PATH] [--json]\n"
            "                                 [--quiet]\n"
            "       trainbench-cli sweep --grid KEY=A,B,... [--grid ...] [--config FILE]\n"
            "                            [--set KEY=VALUE ...] [--metric best_val_acc]\n"
            "                            [--goal maximize|minimize] [--name NAME] ...\n\n"
            "Trains the trials a sweep file lists (a base config, the keys to vary with their\n"
            "values or ranges, grid, seeded random search or successive halving, the metric\n"
            "that ranks them; see resources/docs/sweeps.md), or every combination of the --grid\n"
            "values on the --config/--set config. Each trial is a run in the store tagged\n"
            "sweep:NAME and trial:N; --parallel N trains N at once, splitting the cores. Run it\n"
            "again after an interruption (Ctrl+C, SIGTERM) and it trains only the trials not yet\n"
            "done. The --top best trials come last.");
        return args.flag("help") ? 0 : 2;
    }
    if (!grid)
        for (const char* option : {"config", "set", "metric", "goal", "name"})
            if (!args.values(option).empty())
                throw ConfigError(std::string("--") + option,
                                  "goes with --grid; a sweep file says it in the file");
    const SweepDefinition sweep =
        grid ? commandLineGrid(args) : loadSweepDefinition(args.positional()[0]);
    const int parallel = static_cast<int>(args.intValue("parallel", 1, 64).value_or(1));
    const auto top = static_cast<std::size_t>(args.intValue("top", 1, 1 << 20).value_or(5));
    const bool json = args.flag("json"), quiet = args.flag("quiet");
    SweepOptions options;
    options.session.databasePath = args.valueOr("db", defaultDatabasePath());
    options.parallel = parallel;
    const std::size_t total = sweepTrials(sweep).size();
    if (!quiet)
        std::fprintf(stderr, "sweep %s: %zu trials (%s%s), ranked by %s (%s)\n", sweep.name.c_str(),
                     total, toString(sweep.method),
                     parallel > 1 ? formatString(", %d at once", parallel).c_str() : "",
                     sweep.metric.name.c_str(),
                     sweep.metric.maximize ? "higher is better" : "lower is better");
    options.onStart = [&](const SweepTrial& t, const std::string& runId) {
        if (!quiet)
            std::fprintf(stderr, "trial %d/%zu: %s (run %s)\n", t.index + 1, total,
                         t.label().c_str(), runId.c_str());
    };
    options.onTrial = [&](const SweepTrialOutcome& t) {
        if (quiet)
            return;
        if (t.fromEarlier)
            std::fprintf(stderr, "trial %d/%zu: %s: done earlier (run %s)\n", t.trial.index + 1,
                         total, t.trial.label().c_str(), t.runId.c_str());
        else if (t.haltedAt)
            std::fprintf(stderr, "trial %d/%zu: stopped early after %lld %s%s (run %s)\n",
                         t.trial.index + 1, total, static_cast<long long>(*t.haltedAt),
                         sweep.budget.epochs ? "epoch" : "step", *t.haltedAt == 1 ? "" : "s",
                         t.runId.c_str());
        else if (t.metric)
            std::fprintf(stderr, "trial %d/%zu: %s %.4g (run %s)\n", t.trial.index + 1, total,
                         sweep.metric.name.c_str(), *t.metric, t.runId.c_str());
        else
            std::fprintf(stderr, "trial %d/%zu: %s%s%s\n", t.trial.index + 1, total,
                         toString(t.status).c_str(), t.error.empty() ? "" : ": ", t.error.c_str());
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
        const auto halted = std::count_if(result.trials.begin(), result.trials.end(),
                                          [](const SweepTrialOutcome& t) { return t.haltedAt; });
        std::printf("%s%zu of %zu trials done%s; best by %s:\n", result.stopped ? "stopped: " : "",
                    result.trials.size(), total,
                    halted ? formatString(" (%zu stopped early)", std::size_t(halted)).c_str() : "",
                    sweep.metric.name.c_str());
        for (std::size_t i = 0; i < std::min(top, ranked.size()); ++i)
            std::printf("  %.4g  %s  (run %s)\n", *ranked[i].metric,
                        ranked[i].trial.label().c_str(), ranked[i].runId.c_str());
    }
    return result.stopped ? 130 : 0;
}

} // namespace tb::cli

// trainbench-cli experiment: the teaching presets from the terminal. `list` names them; `run`
// trains each arm and repeat on the set-up given (the defaults, --config, --set) and prints what
// each measured and the conclusion.
#include "args.h"
#include "commands.h"
#include "configargs.h"
#include "signalstop.h"

#include "core/errors.h"
#include "core/textformat.h"
#include "experiments/experimentrunner.h"
#include "store/runstore.h"
#include "train/runconfig.h"

#include <cstdio>

namespace tb::cli {

namespace {

const char* measureName(ExperimentMeasure m) {
    switch (m) {
    case ExperimentMeasure::Speed:
        return "speed";
    case ExperimentMeasure::Loss:
        return "loss";
    case ExperimentMeasure::Memory:
        return "memory";
    }
    return "speed";
}

int list(bool json) {
    nlohmann::json out = nlohmann::json::array();
    for (const ExperimentPreset& p : builtinExperiments()) {
        nlohmann::json arms = nlohmann::json::array();
        for (const ExperimentArm& a : p.arms)
            arms.push_back(a.label);
        out.push_back({{"id", p.id},
                       {"title", p.title},
                       {"question", p.question},
                       {"measure", measureName(p.measure)},
                       {"steps", p.steps},
                       {"repeats", p.repeats},
                       {"arms", arms}});
        if (!json)
            std::printf("%-13s %s: %s\n", p.id.c_str(), p.title.c_str(), p.question.c_str());
    }
    if (json)
        std::printf("%s\n", out.dump().c_str());
    return 0;
}

nlohmann::json resultJson(const ExperimentPreset& preset, const ExperimentResult& r) {
    nlohmann::json arms = nlohmann::json::array();
    for (const ArmResult& arm : r.arms) {
        nlohmann::json repeats = nlohmann::json::array();
        for (const ArmRepeat& x : arm.repeats)
            repeats.push_back({{"run_id", x.runId},
                               {"device", x.device},
                               {"samples_per_s", x.samplesPerSec},
                               {"precision", x.precision},
                               {"data_wait_share", x.dataWaitShare()},
                               {"step_ms",
                                {{"step", x.parts.stepMs},
                                 {"data_wait", x.parts.dataWaitMs},
                                 {"copy", x.parts.copyMs},
                                 {"forward", x.parts.forwardMs},
                                 {"backward", x.parts.backwardMs},
                                 {"optimizer", x.parts.optimizerMs},
                                 {"all_reduce", x.parts.allReduceMs}}},
                               {"final_loss", x.finalLoss},
                               {"peak_memory_bytes", x.peakMemoryBytes},
                               {"error", x.error}});
        const Spread s = armSpread(arm, preset.measure);
        arms.push_back({{"label", arm.arm.label},
                        {"mean", s.mean},
                        {"stddev", s.stddev},
                        {"repeats", repeats}});
    }
    return {{"experiment", preset.id},
            {"measure", measureName(preset.measure)},
            {"arms", arms},
            {"stopped", r.stopped},
            {"conclusion", r.conclusion}};
}

void printUsage() {
    std::puts(
        "usage: trainbench-cli experiment list [--json]\n"
        "       trainbench-cli experiment [run] ID|FILE [--config FILE] [--set KEY=VALUE]...\n"
        "                                 [--steps N] [--repeats N] [--db PATH | --no-db]\n"
        "                                 [--json] [--quiet]\n\n"
        "Runs a teaching experiment on a set-up (the defaults, then --config, then --set): each\n"
        "arm of the preset for a few hundred steps, repeated (interleaved) so that a difference\n"
        "can be told from noise, each a run tagged experiment:ID and arm:LABEL in the run store.\n"
        "Prints what each arm measured and a conclusion that claims no more than that. ID is a\n"
        "built-in preset (see `experiment list`) or FILE a preset of your own (the format is in\n"
        "resources/experiments/README.md). The conclusion is the last line printed (with --json,\n"
        "one JSON object). Ctrl-C stops after the current step.");
}

} // namespace

int cmdExperiment(const Argv& argv) {
    const Args args(argv, specOf("experiment"));
    const std::vector<std::string>& words = args.positional();
    if (args.flag("help") || words.empty()) {
        printUsage();
        return words.empty() && !args.flag("help") ? 2 : 0;
    }
    const bool json = args.flag("json");
    if (words[0] == "list" && words.size() == 1)
        return list(json);
    // `experiment ID` and `experiment run ID` both run it.
    const bool explicitRun = words[0] == "run" && words.size() == 2;
    if (!explicitRun && words.size() != 1)
        throw ConfigError("experiment",
                          "expected `list`, or a preset: `[run] ID|FILE`; see --help");
    ExperimentPreset preset = findExperiment(explicitRun ? words[1] : words[0]);
    if (const auto steps = args.intValue("steps", 1, 100000))
        preset.steps = static_cast<int>(*steps);
    if (const auto repeats = args.intValue("repeats", 1, 20))
        preset.repeats = static_cast<int>(*repeats);
    RunConfig base;
    applyConfigArgs(args, base);

    ExperimentOptions options;
    if (!args.flag("no-db"))
        options.session.databasePath = args.valueOr("db", defaultDatabasePath());
    options.session.onRecording = [](const RecordingNotice& n) {
        std::fprintf(stderr, "%s\n", n.message.c_str());
    };
    const bool quiet = args.flag("quiet");
    std::FILE* out = json ? stderr : stdout;
    options.onRepeat = [&](std::size_t arm, const ArmRepeat& r) {
        if (quiet)
            return;
        if (!r.error.empty())
            std::fprintf(out, "%-22s failed: %s\n", preset.arms[arm].label.c_str(),
                         r.error.c_str());
        else
            std::fprintf(out, "%-22s %9s samples/s  data wait %3.0f%%  loss %.4f  peak %s  (%s)\n",
                         preset.arms[arm].label.c_str(),
                         formatCount(static_cast<int64_t>(r.samplesPerSec)).c_str(),
                         100.0 * r.dataWaitShare(), r.finalLoss,
                         formatBytes(static_cast<uint64_t>(r.peakMemoryBytes)).c_str(),
                         r.runId.c_str());
        std::fflush(out);
    };
    if (!quiet)
        std::fprintf(out, "%s: %s (%zu arms x %d repeats, %d steps each)\n", preset.title.c_str(),
                     preset.question.c_str(), preset.arms.size(), preset.repeats, preset.steps);
    options.onData = [&](const std::string& note) {
        if (!quiet)
            std::fprintf(out, "%s\n", note.c_str());
        std::fflush(out);
    };

    const SignalStop stop;
    const ExperimentResult result = runExperiment(preset, base, options, stop.token());
    if (json)
        std::printf("%s\n", resultJson(preset, result).dump().c_str());
    else
        std::printf("\n%s%s\n", result.stopped ? "(stopped early) " : "",
                    result.conclusion.c_str());
    return result.stopped ? 130 : 0;
}

} // namespace tb::cli

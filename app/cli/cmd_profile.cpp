// trainbench-cli profile: trains the set-up (the defaults, --config, --set) for a few warm-up
// steps, profiles the next N layer by layer, and prints where the step goes under the
// machine's roofline; --trace writes the steps as a Chrome trace for Perfetto.
#include "args.h"
#include "commands.h"
#include "configargs.h"

#include "core/errors.h"
#include "session/runsession.h"
#include "store/runstore.h"
#include "train/layerprofile.h"
#include "train/runconfig.h"

#include <cstdio>
#include <fstream>
#include <optional>

namespace tb::cli {

namespace {

// Keeps the profile and says the run's warnings and errors on stderr.
class ProfileCollector final : public EventSink {
public:
    void onEvent(const Event& event) override {
        if (const auto* p = std::get_if<ProfileEvent>(&event))
            report = p->report;
        else if (const auto* log = std::get_if<LogEvent>(&event);
                 log && log->level >= LogLevel::Warning)
            std::fprintf(stderr, "%s\n", log->message.c_str());
    }
    std::optional<ProfileReport> report;
};

void writeTrace(const std::string& path, const ProfileReport& report) {
    std::ofstream out(path);
    out << chromeTrace(report).dump() << "\n";
    out.close();
    if (!out)
        throw Error("--trace: cannot write " + path);
}

} // namespace

int cmdProfile(const Argv& argv) {
    const Args args(argv, specOf("profile"));
    if (args.flag("help")) {
        std::puts(
            "usage: trainbench-cli profile [--config FILE] [--set KEY=VALUE]... [--steps N]\n"
            "                              [--warmup W] [--trace FILE.json] [--db PATH | --no-db]\n"
            "                              [--json]\n\n"
            "Trains the set-up for W warm-up steps (default 5), then times the next N (default\n"
            "20) layer by layer: each layer's forward and backward, the batch's copy, the loss\n"
            "and the optimizer, with each layer's FLOPs and bytes from its shapes. Prints the\n"
            "machine's roofs (compute peak and memory bandwidth, measured once and cached) and\n"
            "for each layer its achieved GFLOP/s and GB/s, the fraction of the roofline it\n"
            "reaches and what bounds it: compute, memory or overhead. --trace writes the steps\n"
            "as Chrome trace events (open in ui.perfetto.dev or chrome://tracing).");
        return 0;
    }
    RunConfig config;
    applyConfigArgs(args, config);
    const int steps = static_cast<int>(args.intValue("steps", 1, 100000).value_or(20));
    const int warmup = static_cast<int>(args.intValue("warmup", 0, 100000).value_or(5));
    config.maxSteps = warmup + steps;
    config.maxEpochs = 0;
    config.validate();
    RunSessionOptions session;
    if (!args.flag("no-db"))
        session.databasePath = args.valueOr("db", defaultDatabasePath());
    ProfileCollector collector;
    RunSession run(config, session, {&collector});
    run.requestProfile(steps, warmup);
    const RunFinishedEvent finished = run.run();
    if (finished.status == RunStatus::Failed)
        throw Error(finished.error);
    if (!collector.report)
        throw Error("the run ended before a profiled step (" + toString(finished.status) + ")");
    const ProfileReport& report = *collector.report;
    if (const auto trace = args.value("trace"))
        writeTrace(*trace, report);
    if (args.flag("json"))
        std::printf("%s\n", toJson(report).dump().c_str());
    else
        std::fputs(formatProfileTable(report).c_str(), stdout);
    return 0;
}

} // namespace tb::cli

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

// Keeps the profile and the step times of the steps after it (profiling's cost is the
// difference), and says the run's warnings and errors on stderr.
class ProfileCollector final : public EventSink {
public:
    explicit ProfileCollector(int64_t lastProfiledStep) : m_lastProfiled(lastProfiledStep) {}
    void onEvent(const Event& event) override {
        if (const auto* p = std::get_if<ProfileEvent>(&event))
            report = p->report;
        else if (const auto* step = std::get_if<StepEvent>(&event);
                 step && step->step > m_lastProfiled) {
            unprofiledMs += step->stepMs;
            ++unprofiledSteps;
        } else if (const auto* log = std::get_if<LogEvent>(&event);
                   log && log->level >= LogLevel::Warning)
            std::fprintf(stderr, "%s\n", log->message.c_str());
    }
    std::optional<ProfileReport> report;
    double unprofiledMs = 0.0;
    int unprofiledSteps = 0;

private:
    int64_t m_lastProfiled;
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
            "as Chrome trace events (open in ui.perfetto.dev or chrome://tracing). N more\n"
            "steps then train unprofiled, so the last line says what profiling cost.");
        return 0;
    }
    RunConfig config;
    applyConfigArgs(args, config);
    const int steps = static_cast<int>(args.intValue("steps", 1, 100000).value_or(20));
    const int warmup = static_cast<int>(args.intValue("warmup", 0, 100000).value_or(5));
    // As many steps again after the profile, unprofiled, for what profiling costs.
    config.maxSteps = warmup + 2 * steps;
    config.maxEpochs = 0;
    config.logEveryNSteps = 1;
    config.validate();
    RunSessionOptions session;
    if (!args.flag("no-db"))
        session.databasePath = args.valueOr("db", defaultDatabasePath());
    ProfileCollector collector(warmup + steps);
    RunSession run(config, session, {&collector});
    run.requestProfile(steps, warmup);
    const RunFinishedEvent finished = run.run();
    if (finished.status == RunStatus::Failed)
        throw Error(finished.error);
    if (!collector.report)
        throw Error("the run ended before a profiled step (" + toString(finished.status) + ")");
    const ProfileReport& report = *collector.report;
    const double unprofiledMs =
        collector.unprofiledSteps > 0 ? collector.unprofiledMs / collector.unprofiledSteps : 0.0;
    if (const auto trace = args.value("trace"))
        writeTrace(*trace, report);
    if (args.flag("json")) {
        nlohmann::json out = toJson(report);
        out["unprofiled_step_ms"] = unprofiledMs;
        out["advice"] = profileAdvice(report);
        std::printf("%s\n", out.dump().c_str());
    } else {
        std::fputs(formatProfileTable(report).c_str(), stdout);
        if (unprofiledMs > 0.0)
            std::printf("\nthe %d steps after the profile, unprofiled: %.2f ms a step (profiling "
                        "cost %+.1f%%)\n",
                        collector.unprofiledSteps, unprofiledMs,
                        100.0 * (report.stepMs / unprofiledMs - 1.0));
    }
    return 0;
}

} // namespace tb::cli

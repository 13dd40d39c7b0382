// trainbench-cli profile: trains the set-up (the defaults, --config, --set; or a stored run's
// with --from) for a few warm-up steps, profiles the next N layer by layer, and prints where
// the step goes under the machine's roofline; --trace writes the steps as a Chrome trace for
// Perfetto. --nproc N profiles a data-parallel job, every rank's spans in the trace.
#include "args.h"
#include "commands.h"
#include "configargs.h"
#include "localjob.h"
#include "storedcheckpoint.h"

#include "core/errors.h"
#include "dist/mpicommunicator.h"
#include "session/profilesession.h"
#include "store/runstore.h"
#include "train/layerprofile.h"
#include "train/runconfig.h"
#include "train/trainer.h"

#include <cstdio>
#include <fstream>

namespace tb::cli {

namespace {

// Says the run's warnings and errors on stderr.
class WarningPrinter final : public EventSink {
public:
    void onEvent(const Event& event) override {
        if (const auto* log = std::get_if<LogEvent>(&event); log && log->level >= LogLevel::Warning)
            std::fprintf(stderr, "%s\n", log->message.c_str());
    }
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
            "                              [--warmup W] [--from RUN_ID|CHECKPOINT] [--nproc N]\n"
            "                              [--trace FILE.json] [--db PATH | --no-db] [--json]\n\n"
            "Trains the set-up for W warm-up steps (default 5), then times the next N (default\n"
            "20) layer by layer: each layer's forward and backward, the batch's copy, the loss,\n"
            "the optimizer per parameter group and the all-reduce, with each layer's FLOPs and\n"
            "bytes from its shapes. Prints the machine's roofs (compute peak and memory\n"
            "bandwidth, measured once and cached) and for each layer its achieved GFLOP/s and\n"
            "GB/s, the fraction of the roofline it reaches and what bounds it: compute, memory\n"
            "or overhead. N more steps then train unprofiled, so the last line says what\n"
            "profiling cost.\n\n"
            "--from profiles a stored run again: its config (--set changes it, e.g.\n"
            "precision=bf16-mixed) and its checkpoint's weights; the profile is kept with that\n"
            "run in the store, and nothing else is recorded. Without --from the measurement is\n"
            "recorded as a run of its own.\n"
            "--nproc N profiles a data-parallel job of N ranks on this machine.\n"
            "--trace writes the steps as Chrome trace events, a process per rank (open in\n"
            "ui.perfetto.dev or chrome://tracing).");
        return 0;
    }
    const std::string databasePath =
        args.flag("no-db") ? std::string() : args.valueOr("db", defaultDatabasePath());
    ProfileRunOptions options;
    options.steps = static_cast<int>(args.intValue("steps", 1, 100000).value_or(20));
    options.warmup = static_cast<int>(args.intValue("warmup", 0, 100000).value_or(5));
    RunConfig config;
    StoredCheckpoint stored;
    if (const auto from = args.value("from")) {
        stored = findCheckpoint(*from, databasePath, "--from");
        config = Trainer::configFromCheckpoint(stored.checkpoint);
        options.weightsFrom = stored.checkpoint;
    }
    applyConfigArgs(args, config);
    if (const auto ranks = args.intValue("nproc", 1, 256))
        config.set("ranks", std::to_string(*ranks));
    if (config.ranks > 1 && !MpiCommunicator::launchedByMpi()) {
        config.validate(); // a bad config fails here, not in every rank
        return runLocalJob("profile", jobArguments(argv, config.ranks), config.ranks,
                           config.threads);
    }
    // In a data-parallel job rank 0 records and prints; the others only train.
    const bool distributed = config.distributed == "mpi";
    const int rank = distributed ? MpiCommunicator::world().rank() : 0;
    if (rank == 0 && stored.checkpoint.empty())
        options.session.databasePath = databasePath;
    WarningPrinter warnings;
    const ProfileRunResult result = runProfile(config, options, {&warnings});
    const auto exitWith = [&](int code) {
        if (rank == 0)
            reportJobStatus(code);
        return distributed && underLocalJob() ? 0 : code;
    };
    if (result.finished.status == RunStatus::Failed) {
        std::fprintf(stderr, "trainbench-cli profile: %serror: %s\n",
                     distributed ? ("rank " + std::to_string(rank) + ": ").c_str() : "",
                     result.finished.error.c_str());
        exitWith(1);
        if (distributed && MpiCommunicator::world().size() > 1)
            MpiCommunicator::world().abort(1);
        return 1;
    }
    if (rank != 0)
        return exitWith(0);
    if (!result.report)
        throw Error("the run ended before a profiled step (" + toString(result.finished.status) +
                    ")");
    const ProfileReport& report = *result.report;
    if (!stored.runId.empty() && !databasePath.empty())
        RunStore(databasePath).addProfile(stored.runId, report);
    if (const auto trace = args.value("trace"))
        writeTrace(*trace, report);
    if (args.flag("json")) {
        nlohmann::json out = toJson(report);
        out["unprofiled_step_ms"] = result.unprofiledStepMs;
        out["advice"] = profileAdvice(report);
        if (!stored.runId.empty())
            out["run_id"] = stored.runId;
        std::printf("%s\n", out.dump().c_str());
    } else {
        std::fputs(formatProfileTable(report).c_str(), stdout);
        if (result.unprofiledSteps > 0)
            std::printf("\nthe %d steps after the profile, unprofiled: %.2f ms a step (profiling "
                        "cost %+.1f%%)\n",
                        result.unprofiledSteps, result.unprofiledStepMs,
                        100.0 * result.costFraction());
        if (!stored.runId.empty() && !databasePath.empty())
            std::printf("kept with run %s in %s\n", stored.runId.c_str(), databasePath.c_str());
    }
    return exitWith(0);
}

} // namespace tb::cli

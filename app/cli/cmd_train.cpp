// trainbench-cli train: builds a RunConfig from --config/--set (or a checkpoint), records the
// run in the run store with live telemetry, and trains with terminal progress.
#include "args.h"
#include "commands.h"
#include "confighelp.h"
#include "progress.h"

#include "core/errors.h"
#include "io/jsontext.h"
#include "store/runrecorder.h"
#include "store/runstore.h"
#include "telemetry/telemetrysampler.h"
#include "train/checkpointer.h"
#include "train/trainer.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <thread>

namespace tb::cli {

namespace {

std::atomic<int> g_interrupts{0};

void onInterrupt(int) {
    g_interrupts.fetch_add(1);
}

void printHelp() {
    std::puts(
        "usage: trainbench-cli train [--config run.json] [--set key=value]... [--json]\n"
        "                            [--db PATH | --no-db] [--resume RUN_ID|PATH] [--quiet]\n\n"
        "With no options it trains fmnist-cnn on Fashion-MNIST. Ctrl-C stops after the\n"
        "current step and saves a checkpoint; --resume continues it.");
    printConfigKeys(stdout);
}

RunConfig buildConfig(const Args& args, std::string& resumePath) {
    RunConfig config;
    if (const auto resume = args.value("resume")) {
        resumePath = *resume;
        if (!std::filesystem::exists(resumePath))
            resumePath = defaultCheckpointRoot() + "/" + *resume + "/last.safetensors";
        if (!std::filesystem::exists(resumePath))
            throw ConfigError("--resume", "'" + *resume +
                                              "' is neither a checkpoint file nor a "
                                              "run id with a checkpoint in " +
                                              defaultCheckpointRoot());
        config = Trainer::configFromCheckpoint(resumePath);
    } else if (const auto file = args.value("config")) {
        config.applyJson(parseJsonFile(*file));
    }
    for (const std::string& kv : args.values("set")) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw ConfigError("--set", "'" + kv + "' must look like key=value");
        config.set(kv.substr(0, eq), kv.substr(eq + 1));
    }
    config.validate();
    return config;
}

nlohmann::json resultJson(const std::string& runId, const RunFinishedEvent& f,
                          const RunConfig& config) {
    const RunSummary& s = f.summary;
    return {{"run_id", runId},
            {"status", toString(f.status)},
            {"error", f.error},
            {"model", config.model},
            {"dataset", config.data.name},
            {"epochs", s.epochs},
            {"steps", s.steps},
            {"train_loss", s.finalTrainLoss},
            {"test_loss", s.finalValLoss},
            {"test_acc", s.finalValAcc},
            {"best_val_acc", s.bestValAcc},
            {"samples_per_s", s.meanSamplesPerSec},
            {"duration_s", s.durationSec},
            {"peak_memory_mb", static_cast<double>(s.peakMemoryBytes) / (1024.0 * 1024.0)},
            {"checkpoint", f.checkpoint}};
}

} // namespace

int cmdTrain(const Argv& argv) {
    const Args args(argv, {{"config", "set", "db", "resume"}, {"json", "no-db", "quiet"}});
    if (args.flag("help")) {
        printHelp();
        return 0;
    }
    std::string resumePath;
    const RunConfig config = buildConfig(args, resumePath);
    const bool json = args.flag("json");

    TrainerOptions options;
    // A resumed run continues its own record (and checkpoint folder) in the run store.
    options.runId = resumePath.empty() ? makeRunId() : Checkpointer::runIdOf(resumePath);
    if (options.runId.empty())
        options.runId = makeRunId();
    options.resumeFrom = resumePath;
    EventFanout sinks;
    ProgressPrinter progress(json ? stderr : stdout);
    if (!args.flag("quiet"))
        sinks.add(&progress);

    std::unique_ptr<RunRecorder> recorder;
    TelemetrySampler sampler;
    if (!args.flag("no-db")) {
        const std::string db = args.valueOr("db", defaultDatabasePath());
        recorder = std::make_unique<RunRecorder>(db); // its errors name the file and --no-db
        sinks.add(recorder.get());
        sampler.addSink(recorder.get());
        sampler.start();
    }

    // Ctrl-C asks the trainer to stop after the current step; a second one aborts.
    std::stop_source stopSource;
    g_interrupts = 0;
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    std::jthread watcher([&](std::stop_token done) {
        while (!done.stop_requested()) {
            if (g_interrupts.load() > 0)
                stopSource.request_stop();
            if (g_interrupts.load() > 1)
                std::_Exit(130);
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    });

    Trainer trainer(config, sinks, options);
    const RunFinishedEvent finished = trainer.run(stopSource.get_token());
    watcher.request_stop();
    sampler.stop();
    if (recorder) {
        sampler.removeSink(recorder.get());
        if (!recorder->flush())
            std::fprintf(stderr, "warning: the run store stopped recording: %s\n",
                         recorder->lastError().c_str());
    }
    if (json)
        std::printf("%s\n", resultJson(options.runId, finished, config).dump().c_str());
    if (finished.status == RunStatus::Failed) {
        std::fprintf(stderr, "trainbench-cli train: error: %s\n", finished.error.c_str());
        return 1;
    }
    return 0;
}

} // namespace tb::cli

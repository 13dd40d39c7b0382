// trainbench-cli train: builds a RunConfig from --config/--set (or a checkpoint), records the
// run in the run store with live telemetry, and trains with terminal progress.
#include "args.h"
#include "commands.h"
#include "configargs.h"
#include "confighelp.h"
#include "localjob.h"
#include "progress.h"

#include "core/errors.h"
#include "dist/mpicommunicator.h"
#include "io/jsontext.h"
#include "session/runsession.h"
#include "store/runstore.h"
#include "telemetry/telemetrysampler.h"
#include "train/checkpointer.h"
#include "train/trainer.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>

namespace tb::cli {

namespace {

std::atomic<int> g_interrupts{0};
std::atomic<int> g_signal{0}; // the last SIGINT or SIGTERM received

void onInterrupt(int signal) {
    g_signal.store(signal);
    g_interrupts.fetch_add(1);
}

// A shell's status for a process ended by `signal` (130 for SIGINT, 143 for SIGTERM), so a
// script or a service manager sees that the run did not finish.
int signalExitCode() {
    return 128 + g_signal.load();
}

void printHelp() {
    std::puts("usage: trainbench-cli train [--config run.json] [--set key=value]... [--json]\n"
              "                            [--db PATH | --no-db] [--resume RUN_ID|PATH] [--quiet]\n"
              "                            [--nproc N] [--run-id ID] [--db-wait SECONDS]\n\n"
              "With no options it trains fmnist-cnn on Fashion-MNIST. Ctrl-C or SIGTERM stops\n"
              "after the current step, saves a checkpoint and exits with status 130 (143 for\n"
              "SIGTERM); --resume continues it. A second one exits at once.\n\n"
              "Data-parallel: --nproc N (or ranks=N) starts N ranks on this machine (through\n"
              "mpirun, the cores split between them); `mpirun -np N trainbench-cli train --set\n"
              "distributed=mpi` does the same on any hosts mpirun or srun reaches. batch_size is\n"
              "per rank; rank 0 records the run and saves its checkpoints. A job resumes on\n"
              "another rank count from the same place in its epoch.\n\n"
              "--run-id ID records the run under ID (a program that follows it in the store).\n"
              "--db-wait SECONDS: how long the end of a run keeps retrying a locked or full run\n"
              "database before it gives up on what is not yet recorded (default 60).");
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
    }
    // A resumed run keeps its checkpoint's config but for what --config and --set change.
    applyConfigArgs(args, config);
    return config;
}

// Calls back when the run's end is reported: training is over, recording may not be.
class RunEndSink final : public EventSink {
public:
    explicit RunEndSink(std::function<void()> onEnd) : m_onEnd(std::move(onEnd)) {}
    void onEvent(const Event& event) override {
        if (std::holds_alternative<RunFinishedEvent>(event))
            m_onEnd();
    }

private:
    std::function<void()> m_onEnd;
};

// Every epoch's figures for the --json summary, with the wall time since the command started
// (time to an accuracy can be read from it).
class EpochHistory final : public EventSink {
public:
    void onEvent(const Event& event) override {
        const auto* e = std::get_if<EpochEvent>(&event);
        if (!e)
            return;
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
        std::lock_guard lock(m_mutex);
        m_epochs.push_back({{"epoch", e->epoch},
                            {"step", e->step},
                            {"train_loss", e->trainLoss},
                            {"val_loss", e->valLoss},
                            {"val_acc", e->valAcc},
                            {"seconds", e->seconds},
                            {"samples_per_s", e->samplesPerSec},
                            {"elapsed_s", elapsed},
                            {"partial", e->partial}});
        if (!e->sample.empty())
            m_epochs.back()["sample"] = e->sample;
        if (const auto& s = e->validation.segmentation)
            m_epochs.back()["val_miou"] = s->meanIoU;
    }
    nlohmann::json json() const {
        std::lock_guard lock(m_mutex);
        return m_epochs;
    }

private:
    const std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
    mutable std::mutex m_mutex;
    nlohmann::json m_epochs = nlohmann::json::array();
};

// ranks: the processes that trained the run (the job's size; 1 alone).
nlohmann::json resultJson(const std::string& runId, const RunFinishedEvent& f,
                          const RunConfig& config, int ranks, const nlohmann::json& epochs) {
    const RunSummary& s = f.summary;
    // A run that never validated (stopped or failed before it could) measured no accuracy:
    // null, which no reader takes for a measured 0%.
    const auto validated = [&](double v) {
        return s.bestEpoch > 0 ? nlohmann::json(v) : nlohmann::json();
    };
    return {{"run_id", runId},
            {"status", toString(f.status)},
            {"error", f.error},
            {"model", config.model},
            {"dataset", config.data.name},
            {"ranks", ranks},
            {"effective_batch", ranks * config.batchSize * config.accumulateGradBatches},
            {"epochs", s.epochs},
            {"steps", s.steps},
            {"train_loss", s.steps > 0 ? nlohmann::json(s.finalTrainLoss) : nlohmann::json()},
            {"test_loss", validated(s.finalValLoss)},
            {"test_acc", validated(s.finalValAcc)},
            {"best_val_acc", validated(s.bestValAcc)},
            {"samples_per_s", s.meanSamplesPerSec},
            {"duration_s", s.durationSec},
            {"peak_memory_mb", static_cast<double>(s.peakMemoryBytes) / (1024.0 * 1024.0)},
            {"checkpoint", f.checkpoint},
            {"per_epoch", epochs}};
}

} // namespace

int cmdTrain(const Argv& argv) {
    const Args args(argv, specOf("train"));
    if (args.flag("help")) {
        printHelp();
        return 0;
    }
    std::string resumePath;
    RunConfig config = buildConfig(args, resumePath);
    // ranks > 1 (or --nproc, the same) outside an MPI launcher: start the job, whose ranks
    // come back here with distributed=mpi.
    if (const auto ranks = args.intValue("nproc", 1, 256))
        config.set("ranks", std::to_string(*ranks));
    if (config.ranks > 1 && !MpiCommunicator::launchedByMpi()) {
        config.validate(); // a bad config fails here, not in every rank
        return runLocalJob("train", jobArguments(argv, config.ranks), config.ranks, config.threads);
    }
    // In a data-parallel job rank 0 records, prints and reports; the others only train.
    const bool distributed = config.distributed == "mpi";
    const int rank = distributed ? MpiCommunicator::world().rank() : 0;
    const bool json = args.flag("json") && rank == 0;

    RunSessionOptions options;
    // A resumed run continues its own record (and checkpoint folder) in the run store; a
    // launcher that follows the run in the store names it in advance (--run-id).
    options.trainer.runId =
        resumePath.empty() ? args.valueOr("run-id", "") : Checkpointer::runIdOf(resumePath);
    if (args.value("run-id") && !resumePath.empty() &&
        *args.value("run-id") != options.trainer.runId)
        throw ConfigError("--run-id", "a resumed run keeps its id (" + options.trainer.runId + ")");
    options.trainer.resumeFrom = resumePath;
    if (!args.flag("no-db") && rank == 0)
        options.databasePath = args.valueOr("db", defaultDatabasePath());
    if (const auto wait = args.intValue("db-wait", 0, 86400))
        options.recorder.closePatience = std::chrono::seconds(*wait);
    TelemetrySampler sampler;
    options.telemetry = &sampler;
    options.onRecording = [](const RecordingNotice& notice) {
        if (notice.kind == RecordingNotice::Kind::Lost)
            std::fprintf(stderr, "trainbench-cli train: error: %s\n", notice.message.c_str());
        else
            std::fprintf(stderr, "%s\n", notice.message.c_str());
    };
    EpochHistory epochs;
    ProgressPrinter progress(json ? stderr : stdout);
    // Training ends (the run's end is reported) before recording does: from then on an
    // interrupt ends the wait for the store instead of the run.
    std::atomic<int> interruptsWhenTrained{-1};
    RunEndSink trainingEnd([&] { interruptsWhenTrained = g_interrupts.load(); });
    std::vector<EventSink*> sinks{&epochs, &trainingEnd};
    if (!args.flag("quiet") && rank == 0)
        sinks.push_back(&progress);
    RunSession session(config, options, sinks); // a store error names the file and --no-db
    if (session.recording())
        sampler.start();

    // Ctrl-C or SIGTERM asks the trainer to stop after the current step; a second one aborts.
    // Once training is over, the next one ends a wait for a locked or full database instead
    // (what was not recorded is said), and one more aborts.
    std::stop_source stopSource;
    g_interrupts = 0;
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    if (distributed) // a job's launcher asks its ranks to stop with SIGUSR1 (localjob.cpp)
        std::signal(SIGUSR1, onInterrupt);
    std::jthread watcher([&](std::stop_token done) {
        while (!done.stop_requested()) {
            const int interrupts = g_interrupts.load(), trained = interruptsWhenTrained.load();
            if (interrupts > 0)
                stopSource.request_stop();
            if (trained >= 0 && interrupts > trained)
                session.stopWaitingForStore();
            if (interrupts > (trained >= 0 ? trained + 1 : 1))
                std::_Exit(signalExitCode());
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    });

    const RunFinishedEvent finished = session.run(stopSource.get_token());
    sampler.stop();
    const bool recorded = session.recordedEverything();
    watcher.request_stop(); // after the recorder: Ctrl-C still ends a long wait
    const bool waitInterrupted = g_interrupts.load() > interruptsWhenTrained.load();
    if (json)
        std::printf("%s\n",
                    resultJson(session.runId(), finished, config,
                               distributed ? MpiCommunicator::world().size() : 1, epochs.json())
                        .dump()
                        .c_str());
    // Rank 0's status is the job's: --nproc's launcher exits with it (mpirun may not), and
    // under that launcher the ranks leave mpirun nothing to handle.
    const auto exitWith = [&](int code) {
        if (rank == 0)
            reportJobStatus(code);
        return distributed && underLocalJob() ? 0 : code;
    };
    if (finished.status == RunStatus::Failed) {
        std::fprintf(stderr, "trainbench-cli train: %serror: %s\n",
                     distributed ? ("rank " + std::to_string(rank) + ": ").c_str() : "",
                     finished.error.c_str());
        exitWith(1);
        // Recorded; the job's other ranks may still wait in a collective: end them too.
        if (distributed && MpiCommunicator::world().size() > 1)
            MpiCommunicator::world().abort(1);
        return 1;
    }
    if (finished.status == RunStatus::Stopped) {
        if (rank == 0) // the run and its checkpoints are rank 0's
            std::fprintf(stderr, "trainbench-cli train: stopped by %s; continue with --resume %s\n",
                         g_signal.load() == SIGTERM   ? "SIGTERM"
                         : g_signal.load() == SIGUSR1 ? "SIGUSR1, the job's stop request"
                                                      : "SIGINT",
                         session.runId().c_str());
        return exitWith(signalExitCode());
    }
    if (waitInterrupted)
        return exitWith(signalExitCode());
    return exitWith(recorded ? 0 : 1);
}

} // namespace tb::cli

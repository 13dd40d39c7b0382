// LocalJobSession: a run trained by a data-parallel job of `ranks` processes on this machine,
// for the window and the experiment runner. It starts `trainbench-cli train` with the run's
// config (the CLI starts mpirun and its ranks), and follows the run through the run store that
// rank 0 writes: the rows reach the caller's sinks as events, in the order and form a
// RunSession's do, so a view cannot tell a job from a run trained in its own process.
#pragma once

#include "events/events.h"
#include "train/runconfig.h"

#include <chrono>
#include <stop_token>
#include <string>
#include <vector>

namespace tb {

struct LocalJobOptions {
    std::string databasePath; // required: the job is followed through it
    std::string runId;        // generated when empty
    std::string resumeFrom;   // a checkpoint of the run to continue, under that run's id
    std::string cliPath;      // trainbench-cli; empty: trainbenchCliPath()
    // Forward the job's recorded hardware samples (a caller without a sampler of its own).
    bool forwardSystemSamples = true;
    std::chrono::milliseconds pollInterval{200};
};

class LocalJobSession {
public:
    // Throws ConfigError("ranks") when the config is not one a job trains (ranks < 2) or there
    // is no store to follow it through.
    LocalJobSession(RunConfig config, LocalJobOptions options, std::vector<EventSink*> sinks);
    ~LocalJobSession();
    LocalJobSession(const LocalJobSession&) = delete;
    LocalJobSession& operator=(const LocalJobSession&) = delete;

    const std::string& runId() const { return m_options.runId; }

    // Starts the job and follows it to its end; a stop request asks it to stop (SIGTERM: its
    // ranks agree to stop after the same step and save a checkpoint). Never throws: a job that
    // cannot start, or ends without recording its end, finishes the run as failed saying why.
    RunFinishedEvent run(std::stop_token stop = {});

private:
    void deliver(const Event& event);

    RunConfig m_config;
    LocalJobOptions m_options;
    std::vector<EventSink*> m_sinks;
};

// The trainbench-cli that belongs to this program: $TRAINBENCH_CLI, this program itself, its
// neighbour (installed, both in bin/), the build tree's (for the build tree's engine only), the
// install prefix's; "trainbench-cli" (found on PATH) when none exists.
std::string trainbenchCliPath();

} // namespace tb

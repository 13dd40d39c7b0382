// The training loop: builds the backend, data, model and optimizer from a RunConfig, trains
// with accumulation, mixed precision and checkpoints, evaluates every epoch, and reports
// everything as events. Runs on the caller's thread; stop it through the stop_token.
#pragma once

#include "events/events.h"
#include "train/runconfig.h"

#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace tb {

class Communicator;

// Forwards each event to several sinks, in order.
class EventFanout final : public EventSink {
public:
    void add(EventSink* sink) { m_sinks.push_back(sink); }
    void onEvent(const Event& event) override {
        for (EventSink* s : m_sinks)
            s->onEvent(event);
    }

private:
    std::vector<EventSink*> m_sinks;
};

struct TrainerOptions {
    std::string runId;      // empty: generated
    std::string resumeFrom; // checkpoint path to continue from
    // A checkpoint whose weights and buffers (not its optimizer state or position) the run
    // starts from: a stored run measured again (a profile of it).
    std::string weightsFrom;
    std::string checkpointRoot; // default root when config.checkpoint_dir is empty
    // The newest telemetry sample, for the advisor's GPU and memory rules (may be empty).
    std::function<std::optional<SystemSample>()> latestSample;
    // distributed=mpi: the job's ranks (null: MPI's world, MpiCommunicator::world()).
    Communicator* communicator = nullptr;
    // Other runs train in this process at the same time (a parallel sweep): a CPU run's peak
    // memory is then its backend's own count, as the process's high-water mark is everyone's.
    bool sharesProcess = false;
};

class Trainer {
public:
    Trainer(RunConfig config, EventSink& sink, TrainerOptions options = {});
    ~Trainer();

    // Trains until max_epochs/max_steps or a stop request, then returns the RunFinished event
    // it also sent. Never throws: an error fails the run and is reported in the event.
    RunFinishedEvent run(std::stop_token stop = {});

    // Thread-safe. pause() makes run() wait after the current optimizer step (a PauseEvent
    // reports it) until resume() or a stop request; no CPU is used while it waits.
    void pause();
    void resume();
    bool pauseRequested() const;
    // Thread-safe. Profiles the next `steps` optimizer steps once `notBeforeStep` steps are done
    // (train/stepprofiler.h); a ProfileEvent reports them. A profile cut short by the end of an
    // epoch reports the steps it has.
    void requestProfile(int steps, int64_t notBeforeStep = 0);

    // The configuration stored in a checkpoint (for `train --resume`).
    static RunConfig configFromCheckpoint(const std::string& path);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace tb

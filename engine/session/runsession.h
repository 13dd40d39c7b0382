// RunSession: one training run with everything around it, the same for the window, the CLI, an
// experiment's arms and each rank of a data-parallel job: the trainer, the run store's recorder
// (fed the run's events and the telemetry while it trains), the fan-out to the caller's sinks,
// and the end of recording (a locked or full store waited for, what was lost reported).
#pragma once

#include "events/events.h"
#include "store/runrecorder.h"
#include "train/runconfig.h"
#include "train/trainer.h"

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

namespace tb {

class TelemetrySampler;

// What the session says about recording once training is over, for the caller to show where
// its user looks (stderr, the window's log and status).
struct RecordingNotice {
    enum class Kind {
        Waiting,  // the store is locked or full; the run's events are held and retried
        Recorded, // everything landed after a wait
        Lost,     // some events will never be recorded
    };
    Kind kind;
    std::string message;
};

struct RunSessionOptions {
    TrainerOptions trainer; // runId is generated when empty
    // The store to record in; empty: not recorded. The recorder is opened by the constructor.
    std::string databasePath;
    RunRecorderOptions recorder;
    // Whose samples go to the recorder while the run trains (not owned; may be null).
    TelemetrySampler* telemetry = nullptr;
    // Called on the thread that runs the session (may be empty).
    std::function<void(const RecordingNotice&)> onRecording;
};

class RunSession {
public:
    // Opens the recorder when a database is given: throws StoreError when it cannot be used,
    // so the caller decides (the CLI fails naming --no-db, the window trains unrecorded).
    // Events go to `sinks` (not owned) in order, then to the recorder.
    RunSession(RunConfig config, RunSessionOptions options, std::vector<EventSink*> sinks);
    ~RunSession();
    RunSession(const RunSession&) = delete;
    RunSession& operator=(const RunSession&) = delete;

    const std::string& runId() const { return m_runId; }
    bool recording() const { return m_recorder != nullptr; }

    // Trains until done or stopped, then finishes recording: the final rows are flushed, a
    // store that takes longer is announced (RecordingNotice::Waiting) and waited for up to
    // options.recorder.closePatience (or stopWaitingForStore()), and anything lost is
    // announced. Never throws. Call once, on the thread that is to train.
    RunFinishedEvent run(std::stop_token stop = {});

    // Thread-safe, as Trainer's.
    void pause() { m_trainer->pause(); }
    void resume() { m_trainer->resume(); }
    void requestProfile(int steps, int64_t notBeforeStep = 0) {
        m_trainer->requestProfile(steps, notBeforeStep);
    }
    // Ends a wait for the store now (from any thread): what is not recorded yet is lost.
    void stopWaitingForStore();
    // After run(): whether every event was recorded (true when not recording), and if not how
    // many were lost and why.
    bool recordedEverything() const { return m_recordedEverything; }
    uint64_t lostEvents() const;
    std::string recordingError() const;

private:
    void finishRecording();
    void notify(RecordingNotice::Kind kind, const std::string& message);

    RunSessionOptions m_options;
    std::string m_runId;
    std::unique_ptr<RunRecorder> m_recorder;
    EventFanout m_fanout;
    std::unique_ptr<Trainer> m_trainer;
    bool m_recordedEverything = true;
};

} // namespace tb

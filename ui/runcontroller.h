// RunController: owns the training thread and the telemetry sampler, and turns the engine's
// events into batches on the UI thread. Train / pause / resume / stop come in as calls; the
// event queue is drained on a ~30 ms timer so a burst of events costs one update, not many.
// A run that has finished training but whose store is locked or full keeps recording in the
// background (its events held, retried for as long as the window is open) while the next run
// trains.
#pragma once

#include "events/eventqueue.h"
#include "events/events.h"
#include "session/runsession.h"
#include "telemetry/telemetrysampler.h"
#include "train/runconfig.h"

#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>
#include <vector>

class QThread;

namespace tb::ui {

class RunController : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Running, Paused, Stopping };

    // Runs are recorded in the run store at databasePath (empty: not recorded). The telemetry
    // sampler starts at once, so hardware readings flow with no run active.
    explicit RunController(QString databasePath, const TelemetryOptions& telemetry = {},
                           QObject* parent = nullptr);
    // Stops a run in progress, gives up waiting for a locked store (saying what is lost) and
    // waits for every thread.
    ~RunController() override;
    // The same, now, without the event loop: for an exit that does not go through the window's
    // close (Qt ends the process when the display connection breaks). Safe to call again.
    void finishAll();

    // Starts a run on a training thread. Returns false (and changes nothing) while one trains.
    // With resumeFrom (a checkpoint) and runId, continues that recorded run. A config of
    // ranks > 1 starts a data-parallel job of that many processes instead, followed through the
    // store (false, with a log message, when there is no store to follow it through).
    bool start(const RunConfig& config, const QString& resumeFrom = {}, const QString& runId = {});
    void pause();
    void resume();
    void stop();

    State state() const { return m_state; }
    QString databasePath() const { return m_databasePath; }
    // The run training now (empty when none).
    QString currentRunId() const;
    // Whether the run training now can pause: a data-parallel job cannot (its ranks would wait
    // for each other until the timeout).
    bool canPause() const;
    // Asks the run training in this process to profile its next `steps` steps (a
    // profileArrived() follows); false when none trains here (a data-parallel job's ranks are
    // processes of their own: trainbench-cli profile profiles one).
    bool requestProfile(int steps);
    bool canProfile() const;
    // Runs that finished training and still wait for a locked or full store.
    int runsWaitingToBeRecorded() const { return static_cast<int>(m_recording.size()); }
    // Why the sampler has no GPU readings, empty when it reads them fine.
    QString gpuStatus() const;

signals:
    void stateChanged(tb::ui::RunController::State state);
    void runStarted(const tb::RunStartedEvent& event);
    void stepsArrived(const std::vector<tb::StepEvent>& steps);
    void epochsArrived(const std::vector<tb::EpochEvent>& epochs);
    void systemSamplesArrived(const std::vector<tb::SystemSample>& samples);
    void logMessage(tb::LogLevel level, const QString& message);
    void adviceArrived(const tb::AdviceEvent& advice);
    void profileArrived(const tb::ProfileReport& report);
    void runFinished(const tb::RunFinishedEvent& event);
    // The store could not take a run's events (Waiting: held and retried; Lost: some will
    // never be recorded) or took them after all (Recorded), with what happened in words.
    void recordingChanged(const QString& runId, tb::RecordingNotice::Kind kind,
                          const QString& message);
    // Emitted after each drain that delivered anything: views replot once per tick.
    void tick();

private:
    struct ActiveRun;
    bool startJob(std::unique_ptr<ActiveRun> run, const RunConfig& config,
                  const QString& resumeFrom, const std::string& id);
    void launch(std::unique_ptr<ActiveRun> run);
    void drain();
    void setState(State state);
    void onTrainingEnded(const QString& runId);
    void onRecordingNotice(const QString& runId, const RecordingNotice& notice);
    void onThreadFinished(QThread* thread);

    QString m_databasePath;
    EventQueue m_queue;
    TelemetrySampler m_sampler;
    QTimer m_drainTimer;
    State m_state = State::Idle;
    std::unique_ptr<ActiveRun> m_run;                    // the run training now
    std::vector<std::unique_ptr<ActiveRun>> m_recording; // trained, still being recorded
};

} // namespace tb::ui

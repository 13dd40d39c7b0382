// RunController: owns the trainer's thread and the telemetry sampler, and turns the engine's
// events into batches on the UI thread. Train / pause / resume / stop come in as calls; the
// event queue is drained on a ~30 ms timer so a burst of events costs one update, not many.
#pragma once

#include "telemetry/telemetrysampler.h"
#include "train/eventqueue.h"
#include "train/events.h"
#include "train/runconfig.h"

#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>
#include <vector>

class QThread;

namespace tb {
class EventFanout;
class Trainer;
class RunRecorder;
} // namespace tb

namespace tb::ui {

class RunController : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Running, Paused, Stopping };

    // Runs are recorded in the run store at databasePath (empty: not recorded). The telemetry
    // sampler starts at once, so hardware readings flow with no run active.
    explicit RunController(QString databasePath, const TelemetryOptions& telemetry = {},
                           QObject* parent = nullptr);
    ~RunController() override; // stops a run in progress and waits for its thread

    // Starts a run on the trainer thread. Returns false (and changes nothing) while one runs.
    bool start(const RunConfig& config);
    void pause();
    void resume();
    void stop();

    State state() const { return m_state; }
    QString databasePath() const { return m_databasePath; }
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
    void runFinished(const tb::RunFinishedEvent& event);
    // Emitted after each drain that delivered anything: views replot once per tick.
    void tick();

private:
    void drain();
    void setState(State state);
    void onThreadFinished();

    QString m_databasePath;
    EventQueue m_queue;
    TelemetrySampler m_sampler;
    QTimer m_drainTimer;
    State m_state = State::Idle;
    // Alive for one run; the thread owns nothing, these outlive it.
    std::unique_ptr<Trainer> m_trainer;
    std::unique_ptr<RunRecorder> m_recorder;
    std::unique_ptr<EventFanout> m_sinks;
    std::stop_source m_stop;
    QThread* m_thread = nullptr;
};

} // namespace tb::ui

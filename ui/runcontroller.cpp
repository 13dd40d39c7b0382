// RunController: the trainer on a QThread, its events fanned out to the run store and a queue
// the UI drains; the recorder is flushed on the trainer thread so the UI never waits on disk.
#include "runcontroller.h"

#include "core/errors.h"
#include "core/runid.h"
#include "store/runrecorder.h"
#include "train/trainer.h"

#include <QThread>

namespace tb::ui {

namespace {

constexpr int kDrainIntervalMs = 30;

} // namespace

RunController::RunController(QString databasePath, const TelemetryOptions& telemetry,
                             QObject* parent)
    : QObject(parent), m_databasePath(std::move(databasePath)), m_sampler(telemetry) {
    m_sampler.addSink(&m_queue);
    m_sampler.start();
    m_drainTimer.setInterval(kDrainIntervalMs);
    connect(&m_drainTimer, &QTimer::timeout, this, &RunController::drain);
    m_drainTimer.start();
}

RunController::~RunController() {
    if (m_thread) {
        m_trainer->resume();
        m_stop.request_stop();
        m_thread->wait();
        delete m_thread;
    }
    m_sampler.stop();
}

QString RunController::gpuStatus() const {
    return QString::fromStdString(m_sampler.gpuStatus());
}

bool RunController::start(const RunConfig& config) {
    if (m_thread)
        return false;
    m_sinks = std::make_unique<EventFanout>();
    m_sinks->add(&m_queue);
    if (!m_databasePath.isEmpty()) {
        try {
            m_recorder = std::make_unique<RunRecorder>(m_databasePath.toStdString());
            m_sinks->add(m_recorder.get());
            m_sampler.addSink(m_recorder.get());
        } catch (const Error& e) {
            emit logMessage(LogLevel::Warning,
                            tr("This run is not recorded: %1").arg(QString::fromUtf8(e.what())));
        }
    }
    m_stop = std::stop_source();
    TrainerOptions options;
    options.runId = makeRunId();
    m_trainer = std::make_unique<Trainer>(config, *m_sinks, options);
    m_thread = QThread::create([this, token = m_stop.get_token()] {
        m_trainer->run(token);
        if (!m_recorder)
            return;
        // Off the UI thread: a locked store may take a while to take the last rows.
        m_sampler.removeSink(m_recorder.get());
        if (!m_recorder->flush(std::chrono::seconds(1)) && !m_recorder->failed())
            m_queue.onEvent(LogEvent{LogLevel::Warning,
                                     "waiting for the run database (" + m_recorder->lastError() +
                                         ") to record the rest of this run",
                                     0.0});
        if (!m_recorder->close())
            m_queue.onEvent(LogEvent{LogLevel::Error,
                                     "not all of this run was recorded (" +
                                         std::to_string(m_recorder->lostEvents()) +
                                         " events lost): " + m_recorder->lastError(),
                                     0.0});
    });
    m_thread->setObjectName(QStringLiteral("trainer"));
    connect(m_thread, &QThread::finished, this, &RunController::onThreadFinished);
    m_thread->start();
    setState(State::Running);
    return true;
}

void RunController::pause() {
    if (m_state != State::Running)
        return;
    m_trainer->pause();
    setState(State::Paused);
}

void RunController::resume() {
    if (m_state != State::Paused)
        return;
    m_trainer->resume();
    setState(State::Running);
}

void RunController::stop() {
    if (m_state != State::Running && m_state != State::Paused)
        return;
    m_stop.request_stop(); // also ends a pause
    setState(State::Stopping);
}

void RunController::onThreadFinished() {
    drain(); // the RunFinished event and any store error are in the queue by now
    m_thread->deleteLater();
    m_thread = nullptr;
    m_trainer.reset();
    m_recorder.reset();
    m_sinks.reset();
    setState(State::Idle);
}

void RunController::setState(State state) {
    if (state == m_state)
        return;
    m_state = state;
    emit stateChanged(state);
}

// Delivers the queued events in order, consecutive steps, epochs and samples as one batch each.
void RunController::drain() {
    std::vector<Event> events = m_queue.drain();
    if (events.empty())
        return;
    std::vector<StepEvent> steps;
    std::vector<EpochEvent> epochs;
    std::vector<SystemSample> samples;
    const auto flushBatches = [&] {
        if (!steps.empty())
            emit stepsArrived(steps);
        if (!epochs.empty())
            emit epochsArrived(epochs);
        if (!samples.empty())
            emit systemSamplesArrived(samples);
        steps.clear();
        epochs.clear();
        samples.clear();
    };
    for (const Event& event : events) {
        if (const auto* s = std::get_if<StepEvent>(&event)) {
            steps.push_back(*s);
        } else if (const auto* e = std::get_if<EpochEvent>(&event)) {
            epochs.push_back(*e);
        } else if (const auto* sample = std::get_if<SystemSampleEvent>(&event)) {
            samples.push_back(sample->sample);
        } else {
            flushBatches(); // a run's start, log lines and its end keep their place in order
            if (const auto* started = std::get_if<RunStartedEvent>(&event)) {
                emit runStarted(*started);
            } else if (const auto* log = std::get_if<LogEvent>(&event)) {
                emit logMessage(log->level, QString::fromStdString(log->message));
            } else if (const auto* advice = std::get_if<AdviceEvent>(&event)) {
                emit adviceArrived(*advice);
            } else if (const auto* pause = std::get_if<PauseEvent>(&event)) {
                emit logMessage(LogLevel::Info, pause->paused
                                                    ? tr("paused after step %1").arg(pause->step)
                                                    : tr("resumed at step %1").arg(pause->step));
            } else if (const auto* finished = std::get_if<RunFinishedEvent>(&event)) {
                emit runFinished(*finished);
            }
        }
    }
    flushBatches();
    emit tick();
}

} // namespace tb::ui

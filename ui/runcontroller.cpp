// RunController: each run is a RunSession on its own QThread, writing into the one event queue
// tagged with its run id; the UI drains the queue on a timer. Recording (and any wait for the
// store) happens on the run's thread, so the UI never waits on disk.
#include "runcontroller.h"

#include "core/errors.h"
#include "core/runid.h"
#include "session/localjobsession.h"

#include <QThread>

#include <chrono>

namespace tb::ui {

namespace {

constexpr int kDrainIntervalMs = 30;
// A window is a long-lived process: it keeps retrying a locked store until it closes.
constexpr auto kWindowRecordingPatience = std::chrono::hours(24 * 365);

} // namespace

// A run trains in this process (session) or in a data-parallel job of its own processes,
// followed through the store (job); either way on its own thread.
struct RunController::ActiveRun {
    std::unique_ptr<TaggingSink> sink;
    std::unique_ptr<RunSession> session;
    std::unique_ptr<LocalJobSession> job;
    std::stop_source stop;
    QThread* thread = nullptr;

    std::string runId() const { return session ? session->runId() : job->runId(); }
    void resume() {
        if (session)
            session->resume();
    }
    void stopWaitingForStore() {
        if (session)
            session->stopWaitingForStore();
    }
};

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
    finishAll();
    m_sampler.stop();
}

void RunController::finishAll() {
    if (m_run) {
        m_run->resume();
        m_run->stop.request_stop();
        m_recording.push_back(std::move(m_run));
    }
    for (auto& r : m_recording) {
        r->stopWaitingForStore();
        r->thread->wait();
        delete r->thread;
    }
    m_recording.clear();
}

QString RunController::gpuStatus() const {
    return QString::fromStdString(m_sampler.gpuStatus());
}

QString RunController::currentRunId() const {
    return m_run ? QString::fromStdString(m_run->runId()) : QString();
}

bool RunController::canPause() const {
    return m_run && m_run->session;
}

bool RunController::start(const RunConfig& config, const QString& resumeFrom,
                          const QString& runId) {
    if (m_run)
        return false;
    auto run = std::make_unique<ActiveRun>();
    const std::string id = runId.isEmpty() ? makeRunId() : runId.toStdString();
    run->sink = std::make_unique<TaggingSink>(m_queue, EventSource{id, 0});
    if (config.ranks > 1)
        return startJob(std::move(run), config, resumeFrom, id);
    RunSessionOptions options;
    options.telemetry = &m_sampler;
    options.recorder.closePatience =
        std::chrono::duration_cast<std::chrono::milliseconds>(kWindowRecordingPatience);
    options.databasePath = m_databasePath.toStdString();
    options.trainer.runId = id;
    options.trainer.resumeFrom = resumeFrom.toStdString();
    // From the run's thread to the UI thread, after the run's last events.
    options.onRecording = [this, qid = QString::fromStdString(id)](const RecordingNotice& notice) {
        QMetaObject::invokeMethod(
            this, [this, qid, notice] { onRecordingNotice(qid, notice); }, Qt::QueuedConnection);
    };
    try {
        run->session =
            std::make_unique<RunSession>(config, options, std::vector<EventSink*>{run->sink.get()});
    } catch (const Error& e) {
        // The store cannot be used (read-only, a foreign file): train unrecorded and say so.
        emit logMessage(LogLevel::Warning,
                        tr("This run is not recorded: %1").arg(QString::fromUtf8(e.what())));
        options.databasePath.clear();
        run->session =
            std::make_unique<RunSession>(config, options, std::vector<EventSink*>{run->sink.get()});
    }
    RunSession* session = run->session.get();
    run->thread =
        QThread::create([session, token = run->stop.get_token()] { session->run(token); });
    launch(std::move(run));
    return true;
}

// ranks > 1: `trainbench-cli train` starts the job; its rank 0 writes the store, and the job's
// session turns the rows it reads back into the same events. The window's own sampler already
// shows this machine's hardware, so the job's recorded samples are not shown twice.
bool RunController::startJob(std::unique_ptr<ActiveRun> run, const RunConfig& config,
                             const QString& resumeFrom, const std::string& id) {
    LocalJobOptions options;
    options.databasePath = m_databasePath.toStdString();
    options.runId = id;
    options.resumeFrom = resumeFrom.toStdString();
    options.forwardSystemSamples = false;
    try {
        run->job = std::make_unique<LocalJobSession>(config, options,
                                                     std::vector<EventSink*>{run->sink.get()});
    } catch (const Error& e) {
        emit logMessage(
            LogLevel::Error,
            tr("The data-parallel job cannot start: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    emit logMessage(LogLevel::Info,
                    tr("starting a data-parallel job of %1 ranks (mpirun); its rank 0 records "
                       "the run, which is followed here through the run store")
                        .arg(config.ranks));
    LocalJobSession* job = run->job.get();
    run->thread = QThread::create([job, token = run->stop.get_token()] { job->run(token); });
    launch(std::move(run));
    return true;
}

void RunController::launch(std::unique_ptr<ActiveRun> run) {
    run->thread->setObjectName(QStringLiteral("trainer"));
    QThread* thread = run->thread;
    connect(thread, &QThread::finished, this, [this, thread] { onThreadFinished(thread); });
    m_run = std::move(run);
    thread->start();
    setState(State::Running);
}

bool RunController::canProfile() const {
    return m_run && m_run->session;
}

bool RunController::requestProfile(int steps) {
    if ((m_state != State::Running && m_state != State::Paused) || !canProfile())
        return false;
    m_run->session->requestProfile(steps);
    return true;
}

void RunController::pause() {
    if (m_state != State::Running || !canPause())
        return;
    m_run->session->pause();
    setState(State::Paused);
}

void RunController::resume() {
    if (m_state != State::Paused)
        return;
    m_run->resume();
    setState(State::Running);
}

void RunController::stop() {
    if (m_state != State::Running && m_state != State::Paused)
        return;
    m_run->stop.request_stop(); // also ends a pause
    setState(State::Stopping);
}

// The run's end arrived: training is over, and the next run may start while this one records.
void RunController::onTrainingEnded(const QString& runId) {
    if (!m_run || currentRunId() != runId)
        return;
    m_recording.push_back(std::move(m_run));
    setState(State::Idle);
}

void RunController::onRecordingNotice(const QString& runId, const RecordingNotice& notice) {
    drain(); // the run's own last events first
    const LogLevel level = notice.kind == RecordingNotice::Kind::Lost      ? LogLevel::Error
                           : notice.kind == RecordingNotice::Kind::Waiting ? LogLevel::Warning
                                                                           : LogLevel::Info;
    QString message = QString::fromStdString(notice.message);
    if (notice.kind == RecordingNotice::Kind::Waiting)
        message += tr(". The run is kept in memory and recorded as soon as the database can be "
                      "written; closing the window gives up on what is not recorded by then.");
    emit logMessage(level, message);
    emit recordingChanged(runId, notice.kind, message);
}

void RunController::onThreadFinished(QThread* thread) {
    drain(); // the RunFinished event and any recording notice are in the queue by now
    const auto done = [thread](const std::unique_ptr<ActiveRun>& r) { return r->thread == thread; };
    if (m_run && done(m_run)) // ended without reporting its end (cannot happen; stay safe)
        m_recording.push_back(std::move(m_run));
    std::erase_if(m_recording, done);
    thread->deleteLater();
    if (!m_run)
        setState(State::Idle);
}

void RunController::setState(State state) {
    if (state == m_state)
        return;
    m_state = state;
    emit stateChanged(state);
}

// Delivers the queued events in order, consecutive steps, epochs and samples as one batch each.
// The views show the run training now: a run still being recorded reports only its notices.
void RunController::drain() {
    std::vector<TaggedEvent> events = m_queue.drain();
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
    for (const TaggedEvent& tagged : events) {
        const Event& event = tagged.event;
        const QString runId = QString::fromStdString(tagged.source.runId);
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
            } else if (const auto* profile = std::get_if<ProfileEvent>(&event)) {
                emit profileArrived(profile->report);
            } else if (const auto* pause = std::get_if<PauseEvent>(&event)) {
                emit logMessage(LogLevel::Info, pause->paused
                                                    ? tr("paused after step %1").arg(pause->step)
                                                    : tr("resumed at step %1").arg(pause->step));
            } else if (const auto* finished = std::get_if<RunFinishedEvent>(&event)) {
                emit runFinished(*finished);
                onTrainingEnded(runId);
            }
        }
    }
    flushBatches();
    emit tick();
}

} // namespace tb::ui

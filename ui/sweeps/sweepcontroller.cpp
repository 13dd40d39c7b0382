// SweepController: runSweep on a QThread; trial news crosses to the window's thread queued.
#include "sweeps/sweepcontroller.h"

#include "stoppablethread.h"

#include <memory>

namespace tb::ui {

SweepController::SweepController(QString databasePath, QObject* parent)
    : QObject(parent), m_path(std::move(databasePath)), m_worker(new StoppableThread(this)) {
    qRegisterMetaType<tb::SweepTrialOutcome>();
}

SweepController::~SweepController() {
    finish();
}

void SweepController::finish() {
    m_worker->finish();
}

bool SweepController::running() const {
    return m_worker->running();
}

bool SweepController::start(const SweepDefinition& sweep, int parallel) {
    if (running())
        return false;
    SweepOptions options;
    options.session.databasePath = m_path.toStdString();
    options.parallel = parallel;
    options.onStart = [this](const SweepTrial& trial, const std::string& runId) {
        const int index = trial.index;
        const QString id = QString::fromStdString(runId);
        QMetaObject::invokeMethod(
            this, [this, index, id] { emit trialStarted(index, id); }, Qt::QueuedConnection);
    };
    options.onTrial = [this](const SweepTrialOutcome& outcome) {
        QMetaObject::invokeMethod(
            this, [this, outcome] { emit trialFinished(outcome); }, Qt::QueuedConnection);
    };
    // Written by the worker before `done` is queued, read by `done` after it ran.
    auto stopped = std::make_shared<bool>(false);
    auto error = std::make_shared<QString>();
    m_sweep = sweep;
    m_worker->start(
        QStringLiteral("sweep"),
        [sweep, options, stopped, error](std::stop_token stop) {
            try {
                *stopped = runSweep(sweep, options, stop).stopped;
            } catch (const std::exception& e) { // a store that cannot be used
                *error = QString::fromUtf8(e.what());
            }
        },
        [this, stopped, error] { emit finished(*stopped, *error); });
    emit started(QString::fromStdString(sweep.name), static_cast<int>(sweepTrials(sweep).size()));
    return true;
}

void SweepController::stop() {
    m_worker->requestStop();
}

} // namespace tb::ui

// ExperimentController: runExperiment on a QThread; results cross to the window's thread as
// queued calls.
#include "experiments/experimentcontroller.h"

#include "core/errors.h"
#include "core/textformat.h"
#include "stoppablethread.h"

#include <memory>

namespace tb::ui {

namespace {

QString summaryOf(const ArmRepeat& r) {
    if (!r.error.empty())
        return QObject::tr("failed: %1").arg(QString::fromStdString(r.error));
    return QObject::tr("%1 samples/s, data wait %2% of a step, loss %3, peak %4")
        .arg(QString::fromStdString(formatCount(static_cast<int64_t>(r.samplesPerSec))))
        .arg(100.0 * r.dataWaitShare(), 0, 'f', 0)
        .arg(r.finalLoss, 0, 'f', 4)
        .arg(QString::fromStdString(formatBytes(static_cast<uint64_t>(r.peakMemoryBytes))));
}

} // namespace

ExperimentController::ExperimentController(QString databasePath, QObject* parent)
    : QObject(parent), m_path(std::move(databasePath)), m_worker(new StoppableThread(this)) {}

ExperimentController::~ExperimentController() {
    finish();
}

void ExperimentController::finish() {
    m_worker->finish();
}

bool ExperimentController::running() const {
    return m_worker->running();
}

bool ExperimentController::start(const ExperimentPreset& preset, const RunConfig& base) {
    if (running())
        return false;
    ExperimentOptions options;
    options.session.databasePath = m_path.toStdString();
    options.onRepeat = [this, preset](std::size_t arm, const ArmRepeat& r) {
        const QString label = QString::fromStdString(preset.arms[arm].label);
        const QString summary = summaryOf(r);
        QMetaObject::invokeMethod(
            this, [this, label, summary] { emit repeatFinished(label, summary); },
            Qt::QueuedConnection);
    };
    options.onData = [this](const std::string& note) {
        const QString text = QString::fromStdString(note);
        QMetaObject::invokeMethod(
            this, [this, text] { emit dataChosen(text); }, Qt::QueuedConnection);
    };
    // Written by the worker before `done` is queued, read by `done` after it ran.
    auto result = std::make_shared<ExperimentResult>();
    m_worker->start(
        QStringLiteral("experiment"),
        [preset, base, options, result](std::stop_token stop) {
            try {
                *result = runExperiment(preset, base, options, stop);
            } catch (const std::exception& e) { // a store that cannot be used, a bad arm
                result->conclusion = e.what();
                result->stopped = true;
            }
        },
        [this, id = QString::fromStdString(preset.id), result] {
            QStringList ids;
            for (const ArmResult& arm : result->arms)
                for (const ArmRepeat& r : arm.repeats)
                    ids << QString::fromStdString(r.runId);
            emit finished(id, QString::fromStdString(result->conclusion), result->stopped, ids);
        });
    emit started(QString::fromStdString(preset.title),
                 static_cast<int>(preset.arms.size()) * preset.repeats);
    return true;
}

void ExperimentController::stop() {
    m_worker->requestStop();
}

} // namespace tb::ui

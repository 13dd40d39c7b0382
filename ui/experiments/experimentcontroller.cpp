// ExperimentController: runExperiment on a QThread; results cross to the window's thread as
// queued calls.
#include "experiments/experimentcontroller.h"

#include "core/errors.h"
#include "core/textformat.h"

#include <QThread>

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
    : QObject(parent), m_path(std::move(databasePath)) {}

ExperimentController::~ExperimentController() {
    finish();
}

void ExperimentController::finish() {
    if (!m_thread)
        return;
    m_stop->request_stop();
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
}

bool ExperimentController::start(const ExperimentPreset& preset, const RunConfig& base) {
    if (m_thread)
        return false;
    m_stop = std::make_unique<std::stop_source>();
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
    m_thread = QThread::create([this, preset, base, options, token = m_stop->get_token()] {
        ExperimentResult result;
        try {
            result = runExperiment(preset, base, options, token);
        } catch (const std::exception& e) { // a store that cannot be used, a bad arm
            result.conclusion = e.what();
            result.stopped = true;
        }
        QStringList ids;
        for (const ArmResult& arm : result.arms)
            for (const ArmRepeat& r : arm.repeats)
                ids << QString::fromStdString(r.runId);
        const QString id = QString::fromStdString(preset.id);
        const QString conclusion = QString::fromStdString(result.conclusion);
        const bool stopped = result.stopped;
        QMetaObject::invokeMethod(
            this,
            [this, id, conclusion, stopped, ids] {
                m_thread->wait();
                m_thread->deleteLater();
                m_thread = nullptr;
                emit finished(id, conclusion, stopped, ids);
            },
            Qt::QueuedConnection);
    });
    m_thread->setObjectName(QStringLiteral("experiment"));
    m_thread->start();
    emit started(QString::fromStdString(preset.title),
                 static_cast<int>(preset.arms.size()) * preset.repeats);
    return true;
}

void ExperimentController::stop() {
    if (m_stop)
        m_stop->request_stop();
}

} // namespace tb::ui

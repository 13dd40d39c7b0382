#include "profile/checkpointprofiler.h"

#include "core/errors.h"
#include "session/profilesession.h"
#include "store/runstore.h"
#include "train/trainer.h"

namespace tb::ui {

CheckpointProfiler::CheckpointProfiler(QObject* parent) : QObject(parent) {}

CheckpointProfiler::~CheckpointProfiler() {
    if (m_thread.joinable()) {
        m_thread.request_stop();
        m_thread.join(); // before the QObject goes: what it posts then is dropped with it
    }
}

bool CheckpointProfiler::start(const QString& runId, const QString& checkpoint,
                               const QString& databasePath, int steps) {
    if (m_running.exchange(true))
        return false;
    if (m_thread.joinable())
        m_thread.join(); // the last measurement's thread, already done
    m_thread = std::jthread([this, runId, checkpoint, databasePath, steps](std::stop_token stop) {
        const auto fail = [&](const QString& message) {
            m_running = false;
            QMetaObject::invokeMethod(
                this, [this, runId, message] { emit failed(runId, message); },
                Qt::QueuedConnection);
        };
        try {
            const RunConfig config = Trainer::configFromCheckpoint(checkpoint.toStdString());
            ProfileRunOptions options;
            options.steps = steps;
            options.warmup = kWarmupSteps;
            options.timeUnprofiled = false;
            options.weightsFrom = checkpoint.toStdString();
            const ProfileRunResult result = runProfile(config, options, {}, stop);
            if (result.finished.status == RunStatus::Failed)
                return fail(QString::fromStdString(result.finished.error));
            if (!result.report)
                return fail(stop.stop_requested() ? tr("stopped before a profiled step")
                                                  : tr("it ended before a profiled step"));
            QString note;
            if (!databasePath.isEmpty()) {
                try {
                    RunStore(databasePath.toStdString())
                        .addProfile(runId.toStdString(), *result.report);
                } catch (const Error& e) {
                    note = tr("not kept in the run store: %1").arg(QString::fromUtf8(e.what()));
                }
            }
            m_running = false;
            QMetaObject::invokeMethod(
                this,
                [this, runId, report = *result.report, note] {
                    emit finished(runId, report, note);
                },
                Qt::QueuedConnection);
        } catch (const std::exception& e) {
            fail(QString::fromUtf8(e.what()));
        }
    });
    return true;
}

void CheckpointProfiler::cancel() {
    if (m_thread.joinable())
        m_thread.request_stop();
}

} // namespace tb::ui

#include "profile/checkpointprofiler.h"

#include "core/errors.h"
#include "experiments/backgroundtask.h"
#include "session/profilesession.h"
#include "store/runstore.h"
#include "train/trainer.h"

namespace tb::ui {

CheckpointProfiler::CheckpointProfiler(QObject* parent)
    : QObject(parent), m_task(std::make_unique<BackgroundTask>()) {
    connect(m_task.get(), &BackgroundTask::finished, this, &CheckpointProfiler::done);
}

CheckpointProfiler::~CheckpointProfiler() = default;

bool CheckpointProfiler::running() const {
    return m_task->running();
}

bool CheckpointProfiler::start(const QString& runId, const QString& checkpoint,
                               const QString& databasePath, int steps) {
    if (m_task->running())
        return false;
    m_runId = runId;
    m_report.reset();
    m_message.clear();
    // The outcome reaches this object before the task's finished() does: both are posted from
    // the work's thread, in that order.
    const auto post = [this](std::optional<ProfileReport> report, QString message) {
        QMetaObject::invokeMethod(
            this,
            [this, report = std::move(report), message] {
                m_report = report;
                m_message = message;
            },
            Qt::QueuedConnection);
    };
    return m_task->start([=](std::stop_token stop) {
        try {
            ProfileRunOptions options;
            options.steps = steps;
            options.warmup = kWarmupSteps;
            options.timeUnprofiled = false;
            options.weightsFrom = checkpoint.toStdString();
            const ProfileRunResult result = runProfile(
                Trainer::configFromCheckpoint(checkpoint.toStdString()), options, {}, stop);
            if (result.finished.status == RunStatus::Failed)
                return post(std::nullopt, QString::fromStdString(result.finished.error));
            if (!result.report)
                return post(std::nullopt, stop.stop_requested()
                                              ? tr("stopped before a profiled step")
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
            post(result.report, note);
        } catch (const std::exception& e) {
            post(std::nullopt, QString::fromUtf8(e.what()));
        }
    });
}

void CheckpointProfiler::cancel() {
    m_task->stop();
}

void CheckpointProfiler::done() {
    if (m_report)
        emit finished(m_runId, *m_report, m_message);
    else
        emit failed(m_runId, m_message);
}

} // namespace tb::ui

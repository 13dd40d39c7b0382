// CheckpointProfiler: profiles a stored run again from its checkpoint, off the UI thread (a
// BackgroundTask): its config and trained weights, a few warm-up steps, then the profiled ones
// (session/profilesession.h); the profile is kept with the run in the store. What the Profile
// tab's button does for a run that no longer trains.
#pragma once

#include "events/profilereport.h"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>

namespace tb::ui {

class BackgroundTask;

class CheckpointProfiler : public QObject {
    Q_OBJECT

public:
    static constexpr int kWarmupSteps = 3;

    explicit CheckpointProfiler(QObject* parent = nullptr);
    // Stops a measurement in progress and waits for it.
    ~CheckpointProfiler() override;

    // Starts measuring; false (nothing changes) while one runs. databasePath may be empty: the
    // profile is then shown but not kept.
    bool start(const QString& runId, const QString& checkpoint, const QString& databasePath,
               int steps);
    // Stops the measurement after its current step; failed() follows.
    void cancel();
    bool running() const;

signals:
    // Once the measurement's thread has ended. `note` says when the profile could not be kept
    // in the store (and why); else empty.
    void finished(const QString& runId, const tb::ProfileReport& report, const QString& note);
    void failed(const QString& runId, const QString& message);

private:
    void done();

    QString m_runId;
    std::optional<ProfileReport> m_report; // the outcome, posted by the work before it ends
    QString m_message;                     // the failure, or the note on a stored profile
    // Declared last, destroyed first: its thread, which posts to this object, ends before the
    // rest of it goes.
    std::unique_ptr<BackgroundTask> m_task;
};

} // namespace tb::ui

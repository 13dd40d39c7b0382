// CheckpointProfiler: profiles a stored run again from its checkpoint, off the UI thread: its
// config and trained weights, a few warm-up steps, then the profiled ones
// (session/profilesession.h); the profile is kept with the run in the store. What the Profile
// tab's button does for a run that no longer trains.
#pragma once

#include "events/profilereport.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <thread>

namespace tb::ui {

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
    bool running() const { return m_running.load(); }

signals:
    // `note` says when the profile could not be kept in the store (and why); else empty.
    void finished(const QString& runId, const tb::ProfileReport& report, const QString& note);
    void failed(const QString& runId, const QString& message);

private:
    std::atomic<bool> m_running{false};
    std::jthread m_thread;
};

} // namespace tb::ui

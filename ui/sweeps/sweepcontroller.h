// SweepController: runs one sweep at a time on its own thread (engine/experiments/sweeprunner:
// each trial a recorded, tagged run; several at once with parallel > 1), reporting each trial
// as it starts and ends; stop() ends the trials in progress after their current step (they are
// trained again when the same sweep is started again).
#pragma once

#include "experiments/sweeprunner.h"

#include <QObject>
#include <QString>

namespace tb::ui {

class StoppableThread;

class SweepController : public QObject {
    Q_OBJECT
public:
    // databasePath: the run store the trials are recorded in (the window's).
    explicit SweepController(QString databasePath, QObject* parent = nullptr);
    // Waits for the worker while this object is whole: its callbacks post to it.
    ~SweepController() override;
    // Stops a running sweep and waits for it, now (an exit that does not go through the
    // window's close; the destructor does the same). Safe to call again.
    void finish();

    bool running() const;
    // Starts the sweep; false while another one runs.
    bool start(const SweepDefinition& sweep, int parallel);
    void stop();
    const SweepDefinition& sweep() const { return m_sweep; }

signals:
    void started(const QString& name, int trials);
    void trialStarted(int index, const QString& runId);
    void trialFinished(const tb::SweepTrialOutcome& outcome);
    // The sweep ended: completed, stopped, or failed before training (error).
    void finished(bool stopped, const QString& error);

private:
    QString m_path;
    SweepDefinition m_sweep;
    StoppableThread* m_worker;
};

} // namespace tb::ui

// ExperimentController: runs one experiment preset at a time on its own thread (each arm and
// repeat a recorded run, see engine/experiments), reports each repeat as it ends and the
// conclusion at the end; stop() ends it after the current step.
#pragma once

#include "experiments/experimentrunner.h"

#include <QObject>
#include <QString>

namespace tb::ui {

class StoppableThread;

class ExperimentController : public QObject {
    Q_OBJECT
public:
    // databasePath: the run store the arms are recorded in (the window's).
    explicit ExperimentController(QString databasePath, QObject* parent = nullptr);
    // Waits for the worker while this object is whole: its callbacks post to it.
    ~ExperimentController() override;
    // Stops a running experiment and waits for it, now (an exit that does not go through the
    // window's close; the destructor does the same). Safe to call again.
    void finish();

    bool running() const;
    // Starts `preset` on `base`; false while another experiment runs.
    bool start(const ExperimentPreset& preset, const RunConfig& base);
    void stop();

signals:
    void started(const QString& title, int runs);
    // What the arms train on, where the preset chose it (its "images"), before the first arm.
    void dataChosen(const QString& note);
    // A repeat ended: its arm's label and a one-line summary (or the failure).
    void repeatFinished(const QString& arm, const QString& summary);
    // The experiment ended (completed or stopped): the conclusion and the runs it recorded.
    void finished(const QString& experimentId, const QString& conclusion, bool stopped,
                  const QStringList& runIds);

private:
    QString m_path;
    StoppableThread* m_worker;
};

} // namespace tb::ui

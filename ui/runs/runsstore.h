// RunsStore: the window's own connection to the run store, on its own thread, so listing,
// loading and editing runs never blocks the window. It watches the file (PRAGMA data_version,
// every 250 ms) and sends a fresh listing when anything changed, whoever wrote it (this window's
// trainer, the CLI, another window); it follows the runs a view asks it to, sending only rows
// that landed since the last ones.
#pragma once

#include "store/runrecord.h"
#include "store/runseries.h"
#include "store/runtail.h"

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

class QThread;

namespace tb::ui {

class RunsStoreWorker;

class RunsStore : public QObject {
    Q_OBJECT
public:
    // Starts the thread and the first listing at once.
    explicit RunsStore(QString databasePath, QObject* parent = nullptr);
    ~RunsStore() override; // stops the thread

    QString databasePath() const { return m_path; }

    // Requests, answered by the signals below (queued to the window's thread).
    void list();                          // -> runsListed now (a view that just connected)
    void load(const QString& runId);      // -> runLoaded
    void load(const QStringList& runIds); // -> runLoaded for each, once all are read
    void follow(const QString& runId);    // -> runRowsArrived until the run ends
    void unfollow(const QString& runId);
    void rename(const QString& runId, const QString& name);
    void setNotes(const QString& runId, const QString& notes);
    void addTag(const QString& runId, const QString& tag);
    void removeTag(const QString& runId, const QString& tag);
    void setColor(const QString& runId, const QString& color);
    // Deletes the runs and, with checkpoints, their checkpoint folders.
    void remove(const QStringList& runIds, bool checkpoints);

signals:
    // Every run, newest first; readOnly with the reason when edits are impossible (a newer
    // TrainBench's store, a read-only file).
    void runsListed(const std::vector<tb::RunRecord>& runs);
    void accessChanged(bool readOnly, const QString& why);
    // The run is the receivers' to keep (the comparison grows it in place as rows land).
    void runLoaded(const QString& runId, std::shared_ptr<tb::RunSeries> series);
    void runRowsArrived(const QString& runId, const tb::RunTailUpdate& update);
    // A followed or loaded run is no longer in the store.
    void runDeleted(const QString& runId);
    // Why the store cannot be read, or an edit failed (with the file named).
    void failed(const QString& message);

private:
    QString m_path;
    QThread* m_thread;
    RunsStoreWorker* m_worker;
};

} // namespace tb::ui

Q_DECLARE_METATYPE(std::vector<tb::RunRecord>)
Q_DECLARE_METATYPE(std::shared_ptr<tb::RunSeries>)
Q_DECLARE_METATYPE(tb::RunTailUpdate)

// RunSession: a run trained and recorded as the window and the CLI do it: every event reaches
// the caller's sinks and the store, a locked store is announced and waited for, and the wait
// ends when asked, saying how much was lost.
#include "session/runsession.h"
#include "store/runstore.h"
#include "store/sqlitedb.h"
#include "support/runconfigs.h"
#include "support/runlog.h"

#include <QTemporaryDir>
#include <QtTest>

#include <mutex>
#include <thread>

using namespace tb;

namespace {

RunConfig tinyRun(const QTemporaryDir& dir) {
    RunConfig c = test::shapesRunConfig(dir.filePath("checkpoints").toStdString(), "mlp");
    c.set("max_epochs", "0");
    c.set("max_steps", "4");
    return c;
}

// Notices from the session's thread, read on the test's.
struct Notices {
    std::mutex mutex;
    std::vector<RecordingNotice> seen;
    void add(const RecordingNotice& n) {
        std::lock_guard lock(mutex);
        seen.push_back(n);
    }
    bool has(RecordingNotice::Kind kind) {
        std::lock_guard lock(mutex);
        return std::any_of(seen.begin(), seen.end(),
                           [&](const RecordingNotice& n) { return n.kind == kind; });
    }
};

} // namespace

class TestRunSession : public QObject {
    Q_OBJECT
private slots:
    void trainsAndRecords() {
        QTemporaryDir dir;
        RunSessionOptions o;
        o.databasePath = dir.filePath("runs.db").toStdString();
        test::RunLog log;
        RunSession session(tinyRun(dir), o, {&log});
        QVERIFY(session.recording());
        const RunFinishedEvent f = session.run();
        QCOMPARE(toString(f.status), std::string("completed"));
        QVERIFY(session.recordedEverything());
        QCOMPARE(log.starts.size(), std::size_t{1});
        QCOMPARE(log.starts.front().runId, session.runId());
        RunStore store(o.databasePath);
        QCOMPARE(toString(store.getRun(session.runId()).status), std::string("completed"));
        QCOMPARE(store.stepMetrics(session.runId()).size(), log.steps.size());
    }

    void withoutADatabaseNothingIsRecorded() {
        QTemporaryDir dir;
        test::RunLog log;
        RunSession session(tinyRun(dir), {}, {&log});
        QVERIFY(!session.recording());
        QCOMPARE(toString(session.run().status), std::string("completed"));
        QVERIFY(session.recordedEverything());
        QVERIFY(!QFile::exists(dir.filePath("runs.db")));
    }

    // Another program holds the store's write lock past the end of training: the session says it
    // waits, keeps waiting (a window's patience), and stops when asked, counting what is lost.
    void aLockedStoreIsWaitedForUntilTheWaitIsEnded() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("runs.db").toStdString();
        { RunStore create(path); }
        SqliteDb holder(path, false, std::chrono::milliseconds(0));
        holder.exec("BEGIN EXCLUSIVE");
        Notices notices;
        RunSessionOptions o;
        o.databasePath = path;
        o.recorder.closePatience = std::chrono::hours(1);
        o.onRecording = [&](const RecordingNotice& n) { notices.add(n); };
        test::RunLog log;
        RunSession session(tinyRun(dir), o, {&log});
        std::thread trainer([&] { session.run(); });
        QTRY_VERIFY_WITH_TIMEOUT(notices.has(RecordingNotice::Kind::Waiting), 60000);
        {
            std::lock_guard lock(notices.mutex);
            QVERIFY2(notices.seen.front().message.find(path) != std::string::npos,
                     notices.seen.front().message.c_str());
        }
        session.stopWaitingForStore();
        trainer.join();
        holder.exec("ROLLBACK");
        QVERIFY(notices.has(RecordingNotice::Kind::Lost));
        QVERIFY(!session.recordedEverything());
        QVERIFY(session.lostEvents() > 0);
    }

    // The lock goes while the session waits: everything lands, and it says so.
    void aLockThatGoesLetsTheRunLand() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("runs.db").toStdString();
        { RunStore create(path); }
        auto holder = std::make_unique<SqliteDb>(path, false, std::chrono::milliseconds(0));
        holder->exec("BEGIN EXCLUSIVE");
        Notices notices;
        RunSessionOptions o;
        o.databasePath = path;
        o.onRecording = [&](const RecordingNotice& n) { notices.add(n); };
        test::RunLog log;
        RunSession session(tinyRun(dir), o, {&log});
        std::thread trainer([&] { session.run(); });
        QTRY_VERIFY_WITH_TIMEOUT(notices.has(RecordingNotice::Kind::Waiting), 60000);
        holder->exec("ROLLBACK");
        holder.reset();
        trainer.join();
        QVERIFY(notices.has(RecordingNotice::Kind::Recorded));
        QVERIFY(session.recordedEverything());
        RunStore store(path);
        QCOMPARE(store.stepMetrics(session.runId()).size(), log.steps.size());
    }
};

QTEST_GUILESS_MAIN(TestRunSession)
#include "tst_runsession.moc"

// Run store failures a user can meet: read-only, locked, corrupt and full databases. Each must
// be a StoreError that names the file and says what to do, never a crash.
#include "store/runrecorder.h"
#include "store/runstore.h"
#include "store/storeerror.h"

#include "storetestutil.h"

#include <QElapsedTimer>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace tb;
using namespace tb::test;

Q_DECLARE_METATYPE(tb::StoreError::Kind)

namespace {

// Runs fn, which must throw a StoreError of the given kind naming path and the way out.
template <typename Fn>
bool expectStoreError(Fn fn, StoreError::Kind kind, const std::string& path,
                      const std::string& words) {
    try {
        fn();
    } catch (const StoreError& e) {
        const std::string what = e.what();
        if (e.kind() != kind || e.path() != path || what.find(path) == std::string::npos ||
            what.find(words) == std::string::npos) {
            qWarning("unexpected StoreError (kind %d): %s", int(e.kind()), e.what());
            return false;
        }
        qInfo("%s", e.what());
        return true;
    }
    qWarning("no StoreError thrown");
    return false;
}

void writeBytes(const std::string& path, const QByteArray& bytes) {
    QFile f(QString::fromStdString(path));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
}

QByteArray readFile(const std::string& path) {
    QFile f(QString::fromStdString(path));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestStoreErrors : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string dbPath(const QString& name) const { return m_dir.filePath(name).toStdString(); }

    std::string populated(const QString& name) const {
        const std::string path = dbPath(name);
        RunStore store(path);
        store.beginTransaction();
        store.beginRun(runStarted("r"), 1.0);
        for (int i = 1; i <= 500; ++i)
            store.addStep("r", step(i));
        store.commit();
        return path;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // Tests run as root, where permission bits do not stop writes. The read-only open flag
    // (what the CLI's listing uses) fails for root too, so it is the case tested everywhere; a
    // chmod 0444 file is tested only where it really is unwritable (not root).
    void readOnlyDatabase() {
        const std::string path = populated("readonly.db");
        RunStoreOptions options;
        options.readOnly = true;
        RunStore store(path, options);
        QCOMPARE(store.listRuns().size(), std::size_t{1});
        QVERIFY(expectStoreError([&] { store.rename("r", "new name"); }, StoreError::Kind::ReadOnly,
                                 path, "--no-db"));
        QVERIFY(expectStoreError(
            [&] {
                RunRecorder recorder(path, {{}, options});
                recorder.onEvent(runStarted("x"));
                if (!recorder.flush())
                    throw StoreError(StoreError::Kind::ReadOnly, path, recorder.lastError());
            },
            StoreError::Kind::ReadOnly, path, "read-only"));
    }

    void unwritableFileWithoutRoot() {
        if (geteuid() == 0)
            QSKIP("running as root: permission bits do not stop root's writes");
        const std::string path = populated("chmod.db");
        QCOMPARE(chmod(path.c_str(), 0444), 0);
        QVERIFY(expectStoreError([&] { RunStore store(path); }, StoreError::Kind::ReadOnly, path,
                                 "read-only"));
        chmod(path.c_str(), 0644);
    }

    // Paths that fail for root too: a directory, and a file in /proc, where no one may create
    // files.
    void unopenablePaths_data() {
        QTest::addColumn<QString>("path");
        QTest::newRow("directory") << m_dir.path();
        QTest::newRow("in-proc") << "/proc/self/trainbench-runs.db";
    }

    void unopenablePaths() {
        QFETCH(QString, path);
        const std::string p = path.toStdString();
        try {
            RunStore store(p);
            QFAIL("opening must fail");
        } catch (const StoreError& e) {
            QCOMPARE(e.path(), p);
            QVERIFY2(std::string(e.what()).find(p) != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("--db PATH") != std::string::npos, e.what());
            qInfo("%s", e.what());
        }
    }

    void lockedDatabase() {
        const std::string path = populated("locked.db");
        SqliteDb holder(path, false, std::chrono::milliseconds(0));
        holder.exec("BEGIN EXCLUSIVE");
        holder.exec("INSERT INTO tags (run_id, tag) VALUES ('r', 'held')");

        RunStoreOptions options;
        options.busyTimeout = std::chrono::milliseconds(200);
        RunStore store(path, options);                     // opening needs no write lock
        QCOMPARE(store.listRuns().size(), std::size_t{1}); // WAL: readers are not blocked
        QElapsedTimer timer;
        timer.start();
        QVERIFY(expectStoreError([&] { store.rename("r", "x"); }, StoreError::Kind::Locked, path,
                                 "locked by another process"));
        QVERIFY(timer.elapsed() >= 150); // it waited for the busy timeout first

        // The recorder keeps the run's events and retries: they all land once the lock goes
        // (it used to give up after one busy timeout and drop the whole run).
        RunRecorderOptions recording{std::chrono::milliseconds(10), options};
        RunRecorder recorder(path, recording);
        recorder.onEvent(runStarted("blocked"));
        for (int i = 1; i <= 30; ++i)
            recorder.onEvent(step(i));
        recorder.onEvent(RunFinishedEvent{});
        QVERIFY(!recorder.flush(std::chrono::milliseconds(600)));
        QVERIFY(recorder.waiting());
        QVERIFY(!recorder.failed());
        QVERIFY2(recorder.lastError().find("locked") != std::string::npos,
                 recorder.lastError().c_str());

        holder.exec("ROLLBACK");
        QVERIFY(recorder.flush());
        QVERIFY(!recorder.waiting());
        QCOMPARE(toString(store.getRun("blocked").status), std::string("completed"));
        QCOMPARE(store.stepMetrics("blocked").size(), std::size_t{30});
        store.rename("r", "x"); // works again once the lock is gone
        QCOMPARE(store.getRun("r").name, std::string("x"));
    }

    void corruptFile_data() {
        QTest::addColumn<QByteArray>("bytes");
        QByteArray random(8192, '\0');
        QRandomGenerator rng(42);
        for (char& c : random)
            c = static_cast<char>(rng.bounded(256));
        QTest::newRow("random-bytes") << random;
        QTest::newRow("text") << QByteArray("these are my notes, not a database\n");
        QTest::newRow("sqlite-header-then-junk")
            << QByteArray("SQLite format 3\0", 16) + random.left(1000);
    }

    void corruptFile() {
        QFETCH(QByteArray, bytes);
        const std::string path = dbPath(QString("corrupt-%1.db").arg(QTest::currentDataTag()));
        writeBytes(path, bytes);
        QVERIFY(expectStoreError([&] { RunStore store(path); }, StoreError::Kind::Corrupt, path,
                                 "not a TrainBench run database or is damaged"));
    }

    // Someone else's SQLite database: refused before anything in it changes (it used to be
    // switched to WAL mode and given our tables).
    void foreignDatabaseIsLeftAsItIs() {
        const std::string path = dbPath("foreign.db");
        {
            SqliteDb other(path, false, std::chrono::milliseconds(0));
            other.exec("CREATE TABLE recipes (name TEXT); INSERT INTO recipes VALUES ('soup')");
        }
        const QByteArray before = readFile(path);
        QVERIFY(expectStoreError([&] { RunStore store(path); }, StoreError::Kind::Corrupt, path,
                                 "not a TrainBench run database"));
        QCOMPARE(readFile(path), before);
        QVERIFY(!QFile::exists(QString::fromStdString(path + "-wal")));
        SqliteDb other(path, true, std::chrono::milliseconds(0));
        QCOMPARE(scalarText(other, "PRAGMA journal_mode"), std::string("delete"));
        QCOMPARE(scalar(other, "SELECT count(*) FROM sqlite_master"), int64_t{1});
    }

    void damagedPagesAreFound() {
        const std::string path = populated("damaged.db");
        { RunStore checkpoint(path); } // closing the last connection moves the WAL into the file
        QFile f(QString::fromStdString(path));
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.size() > 4 * 4096);
        f.seek(2 * 4096); // past the header and schema page: into the tables' b-trees
        f.write(QByteArray(2 * 4096, '\x5a'));
        f.close();
        bool detected = false;
        try {
            RunStore store(path);
            detected = !store.checkIntegrity().empty();
            if (!detected) {
                for (const auto& run : store.listRuns())
                    store.stepMetrics(run.id);
            }
        } catch (const StoreError& e) {
            detected = e.kind() == StoreError::Kind::Corrupt && e.path() == path;
            qInfo("%s", e.what());
        }
        QVERIFY(detected);
    }

    void fullDisk() {
        const std::string path = dbPath("full.db");
        RunStoreOptions options;
        options.maxPageCount = 40; // SQLite answers SQLITE_FULL past this, as on a full disk
        RunStore store(path, options);
        QVERIFY(expectStoreError(
            [&] {
                store.beginTransaction();
                store.beginRun(runStarted("big"), 1.0);
                for (int i = 1; i <= 100000; ++i)
                    store.addStep("big", step(i));
                store.commit();
            },
            StoreError::Kind::DiskFull, path, "disk is full"));
        store.rollback();
        QVERIFY(store.listRuns().empty()); // the failed transaction left nothing behind
    }
};

QTEST_GUILESS_MAIN(TestStoreErrors)
#include "tst_storeerrors.moc"

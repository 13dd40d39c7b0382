// The run store's promise, checked for every way a run can end: completed, stopped, failed
// before its first step (a new run, and a resume of a recorded one), failed later, killed
// (SIGKILL), recorded through a lock, and recorded onto a full disk. In each case every row
// recorded before is still there, unchanged, and PRAGMA integrity_check passes.
#include "store/runrecorder.h"

#include "storetestutil.h"

#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <set>
#include <thread>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tb;
using namespace tb::test;

namespace {

constexpr const char* kTables[] = {"runs",           "tags",        "step_metrics", "epoch_metrics",
                                   "system_samples", "gpu_samples", "events"};

// Two recorded runs with metrics, samples, logs, a tag and a note: what must survive.
void recordHistory(const std::string& path) {
    RunStore store(path);
    for (const char* id : {"a", "b"}) {
        store.beginTransaction();
        store.beginRun(runStarted(id), 1000.0);
        for (int i = 1; i <= 20; ++i)
            store.addStep(id, step(i));
        store.addEpoch(id, epoch(1, 0.6));
        store.addEpoch(id, epoch(2, 0.7));
        SystemSample s;
        s.unixTime = 1010.0;
        s.host.cpuPercent = 50.0;
        GpuSample g;
        g.name = "gpu";
        s.gpus.push_back(g);
        store.addSystemSample(id, s);
        store.addLog(id, LogEvent{LogLevel::Info, "hello", 1011.0});
        RunFinishedEvent f;
        f.status = std::string(id) == "a" ? RunStatus::Completed : RunStatus::Stopped;
        f.summary.steps = 20;
        store.finishRun(id, f, 1020.0);
        store.commit();
    }
    store.addTag("a", "baseline");
    store.setNotes("b", "lr too high");
}

// Every row of every table, as text (each table's columns quoted and joined).
std::set<std::string> allRows(SqliteDb& db) {
    std::set<std::string> rows;
    for (const char* table : kTables) {
        std::string columns;
        SqliteStatement info(db, std::string("PRAGMA table_info(") + table + ")");
        while (info.step())
            columns += (columns.empty() ? "" : " || '|' || ") + ("quote(" + info.text(1) + ")");
        SqliteStatement q(db,
                          "SELECT '" + std::string(table) + ":' || " + columns + " FROM " + table);
        while (q.step())
            rows.insert(q.text(0));
    }
    return rows;
}

void tell(int fd) {
    const char byte = 1;
    if (write(fd, &byte, 1) != 1)
        _exit(4);
}

bool waitForByte(int fd, int timeoutMs) {
    pollfd p{fd, POLLIN, 0};
    char byte = 0;
    return poll(&p, 1, timeoutMs) > 0 && read(fd, &byte, 1) == 1;
}

// The forked writer: records one run that ends as `ending` says. Exit 0 when the recorder
// reported what it should have (everything recorded, except on the full disk).
[[noreturn]] void recordRun(const std::string& path, const std::string& ending, int64_t maxPages,
                            int fd, int goFd) {
    if (!waitForByte(goFd, 60000)) // the parent is ready (holds the lock, for "locked")
        _exit(8);
    try {
        RunRecorderOptions options;
        options.commitInterval = std::chrono::milliseconds(10);
        options.closePatience = std::chrono::milliseconds(ending == "locked" ? 60000 : 300);
        if (ending == "locked")
            options.store.busyTimeout = std::chrono::milliseconds(50);
        if (ending == "full-disk")
            options.store.maxPageCount = maxPages;
        RunRecorder recorder(path, options);
        RunStartedEvent start = runStarted("new");
        if (ending == "resume-fails-before-first-step") {
            start = runStarted("a", "changed", "resnet20");
            start.resumed = true;
        }
        recorder.onEvent(start);
        recorder.onEvent(LogEvent{LogLevel::Info, "setting up", 2000.0});
        auto finish = [&](RunStatus status, bool recordsAll) {
            RunFinishedEvent f;
            f.status = status;
            f.error = status == RunStatus::Failed ? "it failed" : "";
            f.summary.steps = 500;
            recorder.onEvent(f);
            _exit(recorder.close() == recordsAll ? 0 : 5);
        };
        if (ending.find("before-first-step") != std::string::npos)
            finish(RunStatus::Failed, true);
        for (int i = 1; i <= 500; ++i) {
            recorder.onEvent(step(i, 3000.0));
            if (i % 100 == 0)
                recorder.onEvent(epoch(i / 100, 0.5));
            if (ending == "killed" && i == 250 && recorder.flush())
                tell(fd); // the parent kills now, mid-run
        }
        if (ending == "killed")
            for (int64_t i = 501;; ++i)
                recorder.onEvent(step(i, 3000.0));
        if (ending == "locked") {
            for (int tries = 0; !recorder.waiting(); ++tries) {
                if (tries > 10000)
                    _exit(6);
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
            tell(fd); // the parent lets go of the lock now
        }
        if (ending == "stopped")
            finish(RunStatus::Stopped, true);
        if (ending == "failed-later")
            finish(RunStatus::Failed, true);
        finish(RunStatus::Completed, ending != "full-disk");
    } catch (...) {
        _exit(3);
    }
    _exit(7);
}

} // namespace

class TestRunEndings : public QObject {
    Q_OBJECT

private slots:
    void recordedRowsSurviveEveryEnding_data() {
        QTest::addColumn<QString>("ending");
        QTest::addColumn<QString>("run");
        QTest::addColumn<QString>("status"); // of `run` afterwards
        QTest::newRow("completed") << "completed"
                                   << "new"
                                   << "completed";
        QTest::newRow("stopped") << "stopped"
                                 << "new"
                                 << "stopped";
        QTest::newRow("failed-before-first-step") << "failed-before-first-step"
                                                  << "new"
                                                  << "failed";
        QTest::newRow("resume-fails-before-first-step") << "resume-fails-before-first-step"
                                                        << "a"
                                                        << "completed";
        QTest::newRow("failed-later") << "failed-later"
                                      << "new"
                                      << "failed";
        QTest::newRow("killed") << "killed"
                                << "new"
                                << "interrupted";
        QTest::newRow("locked") << "locked"
                                << "new"
                                << "completed";
        QTest::newRow("full-disk") << "full-disk"
                                   << "new"
                                   << "completed";
    }

    void recordedRowsSurviveEveryEnding() {
        QFETCH(QString, ending);
        QFETCH(QString, run);
        QFETCH(QString, status);
        QTemporaryDir dir;
        const std::string path = dir.filePath("runs.db").toStdString();
        recordHistory(path);
        std::set<std::string> before;
        int64_t pages = 0;
        {
            RunStore store(path);
            before = allRows(store.db());
            pages = scalar(store.db(), "PRAGMA page_count");
        }
        int fds[2], go[2];
        QCOMPARE(pipe(fds), 0);
        QCOMPARE(pipe(go), 0);
        const pid_t child = fork(); // before the lock: SQLite's lock state must not be forked
        QVERIFY(child >= 0);
        if (child == 0) {
            close(fds[0]);
            close(go[1]);
            recordRun(path, ending.toStdString(), pages + 4, fds[1], go[0]);
        }
        close(fds[1]);
        close(go[0]);
        std::unique_ptr<SqliteDb> holder;
        if (ending == "locked") {
            holder = std::make_unique<SqliteDb>(path, false, std::chrono::milliseconds(0));
            holder->exec("BEGIN EXCLUSIVE");
        }
        tell(go[1]);
        close(go[1]);
        if (ending == "killed" || ending == "locked")
            QVERIFY(waitForByte(fds[0], 60000));
        if (ending == "killed")
            kill(child, SIGKILL);
        if (holder)
            holder.reset(); // ROLLBACK: the lock goes
        int wstatus = 0;
        QCOMPARE(waitpid(child, &wstatus, 0), child);
        close(fds[0]);
        if (ending == "killed")
            QVERIFY(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL);
        else
            QCOMPARE(WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1, 0);

        RunStore store(path); // marks a killed writer's run interrupted
        const auto problems = store.checkIntegrity();
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
        const std::set<std::string> after = allRows(store.db());
        for (const std::string& row : before)
            QVERIFY2(after.count(row), ("lost or changed: " + row).c_str());
        QCOMPARE(toString(store.getRun(run.toStdString()).status), status.toStdString());
    }
};

QTEST_GUILESS_MAIN(TestRunEndings)
#include "tst_runendings.moc"

// Run store under stress: a writer killed with SIGKILL mid-run, and several writers (threads
// and another process) with a reader on one database at once.
#include "store/runrecorder.h"

#include "storetestutil.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <csignal>
#include <mutex>
#include <thread>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tb;
using namespace tb::test;

namespace {

// Reads one int64 from fd, waiting at most timeoutMs; false on EOF, error or timeout.
bool readValue(int fd, int64_t& value, int timeoutMs) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, timeoutMs) <= 0)
        return false;
    return read(fd, &value, sizeof value) == static_cast<ssize_t>(sizeof value);
}

// The forked child's body: never returns into the test framework.
[[noreturn]] void writeForever(const std::string& path, int confirmFd) {
    try {
        RunRecorderOptions options;
        options.commitInterval = std::chrono::milliseconds(20);
        RunRecorder recorder(path, options);
        recorder.onEvent(runStarted("killed"));
        for (int64_t i = 1;; ++i) {
            recorder.onEvent(step(i));
            if (i % 25 == 0) {
                if (!recorder.flush())
                    _exit(2);
                // Written only after the commit: every confirmed step is on disk.
                if (write(confirmFd, &i, sizeof i) != static_cast<ssize_t>(sizeof i))
                    _exit(4);
            }
        }
    } catch (...) {
        _exit(3);
    }
}

[[noreturn]] void writeRun(const std::string& path, const std::string& id, int steps) {
    try {
        RunRecorderOptions options;
        options.commitInterval = std::chrono::milliseconds(10);
        RunRecorder recorder(path, options);
        recorder.onEvent(runStarted(id));
        for (int i = 1; i <= steps; ++i) {
            recorder.onEvent(step(i));
            if (i % 50 == 0)
                recorder.flush();
        }
        recorder.onEvent(RunFinishedEvent{});
        _exit(recorder.flush() ? 0 : 2);
    } catch (...) {
        _exit(3);
    }
}

} // namespace

class TestStoreReliability : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void killedWriterLeavesConsistentDatabase_data() {
        QTest::addColumn<int>("delayMs"); // after the 20th confirmed commit: lands mid-write
        QTest::newRow("at-once") << 0;
        QTest::newRow("7ms") << 7;
        QTest::newRow("23ms") << 23;
    }

    void killedWriterLeavesConsistentDatabase() {
        QFETCH(int, delayMs);
        const std::string path = m_dir.filePath(QString("killed-%1.db").arg(delayMs)).toStdString();
        int fds[2];
        QCOMPARE(pipe(fds), 0);
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            close(fds[0]);
            writeForever(path, fds[1]);
        }
        close(fds[1]);
        int64_t confirmed = 0;
        for (int i = 0; i < 20; ++i) { // 20 commits confirmed, then kill it mid-write
            int64_t v = 0;
            if (!readValue(fds[0], v, 20000))
                break;
            confirmed = v;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
        kill(child, SIGKILL);
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
                 "the writer died before it was killed");
        for (int64_t v = 0; readValue(fds[0], v, 0);)
            confirmed = v; // commits confirmed while the kill was on its way
        close(fds[0]);
        QVERIFY(confirmed >= 500);

        RunStore store(path); // the writer is gone: its run becomes interrupted
        const auto problems = store.checkIntegrity();
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
        const RunRecord run = store.getRun("killed");
        QCOMPARE(toString(run.status), std::string("interrupted"));
        QVERIFY(run.endedAt.has_value());
        const auto steps = store.stepMetrics("killed");
        qInfo("confirmed %lld steps, found %zu", static_cast<long long>(confirmed), steps.size());
        QVERIFY(int64_t(steps.size()) >= confirmed);
        for (std::size_t i = 0; i < steps.size(); ++i)
            QCOMPARE(steps[i].step, int64_t(i + 1)); // whole transactions only: no gaps
        QVERIFY(run.steps >= confirmed);
    }

    void concurrentWritersAndReader() {
        const std::string path = m_dir.filePath("shared.db").toStdString();
        constexpr int kSteps = 1500;
        { RunStore create(path); }
        const pid_t child = fork(); // before any thread of ours exists
        QVERIFY(child >= 0);
        if (child == 0)
            writeRun(path, "process", kSteps);

        std::atomic<int> readerPasses{0};
        std::atomic<bool> sawRunInProgress{false};
        std::mutex errorMutex;
        std::vector<std::string> errors;
        auto report = [&](const std::string& e) {
            std::lock_guard lock(errorMutex);
            errors.push_back(e);
        };
        std::jthread reader([&](std::stop_token stop) {
            try {
                RunStore store(path);
                while (!stop.stop_requested()) {
                    for (const RunRecord& r : store.listRuns()) {
                        const auto steps = store.stepMetrics(r.id);
                        if (r.status == RunStatus::Running && !steps.empty() &&
                            steps.size() < std::size_t{kSteps})
                            sawRunInProgress = true;
                    }
                    ++readerPasses;
                }
            } catch (const std::exception& e) {
                report(std::string("reader: ") + e.what());
            }
        });
        {
            std::vector<std::jthread> writers;
            for (const char* id : {"thread-a", "thread-b"}) {
                writers.emplace_back([&, id] {
                    try {
                        RunRecorderOptions options;
                        options.commitInterval = std::chrono::milliseconds(10);
                        RunRecorder recorder(path, options);
                        recorder.onEvent(runStarted(id));
                        for (int i = 1; i <= kSteps; ++i) {
                            recorder.onEvent(step(i));
                            if (i % 50 == 0)
                                recorder.flush();
                        }
                        recorder.onEvent(RunFinishedEvent{});
                        if (!recorder.flush())
                            report(std::string(id) + ": " + recorder.lastError());
                    } catch (const std::exception& e) {
                        report(std::string(id) + ": " + e.what());
                    }
                });
            }
        }
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        reader.request_stop();
        reader.join();
        QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the writer process failed");
        QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().c_str());
        QVERIFY(readerPasses > 0);
        QVERIFY(sawRunInProgress);

        RunStore store(path);
        QVERIFY(store.checkIntegrity().empty());
        QCOMPARE(store.listRuns().size(), std::size_t{3});
        for (const char* id : {"process", "thread-a", "thread-b"}) {
            QCOMPARE(toString(store.getRun(id).status), std::string("completed"));
            QCOMPARE(store.stepMetrics(id).size(), std::size_t{kSteps});
        }
    }
};

QTEST_GUILESS_MAIN(TestStoreReliability)
#include "tst_storereliability.moc"

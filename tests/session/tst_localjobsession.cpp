// A data-parallel job started from this process (trainbench-cli, mpirun -np 2, one thread per
// rank) and followed through the store: its events arrive as a run's do (started first, each
// logged step with both ranks' times, the end with its summary), a stop reaches every rank and
// ends them after the same step with a checkpoint the run resumes from, and a job that cannot
// start or fails in its ranks finishes the run as failed, saying why.
#include "core/errors.h"
#include "session/localjobsession.h"
#include "store/runstore.h"
#include "support/runconfigs.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <mutex>

using namespace tb;

namespace {

// Keeps every event; calls back on each logged step (from the job's thread).
class Collector final : public EventSink {
public:
    std::function<void(const StepEvent&)> onStep;
    void onEvent(const Event& event) override {
        {
            std::lock_guard lock(m_mutex);
            m_events.push_back(event);
        }
        if (const auto* s = std::get_if<StepEvent>(&event); s && onStep)
            onStep(*s);
    }
    std::vector<Event> events() const {
        std::lock_guard lock(m_mutex);
        return m_events;
    }
    template <typename T> std::vector<T> all() const {
        std::vector<T> out;
        for (const Event& e : events())
            if (const auto* t = std::get_if<T>(&e))
                out.push_back(*t);
        return out;
    }

private:
    mutable std::mutex m_mutex;
    std::vector<Event> m_events;
};

} // namespace

class TestLocalJobSession : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    int m_jobs = 0;

    RunConfig jobConfig() {
        RunConfig c = test::shapesRunConfig(
            m_dir.filePath(QString("ckpt%1").arg(++m_jobs)).toStdString(), "mlp");
        c.set("threads", "1");
        c.set("ranks", "2");
        return c;
    }
    LocalJobOptions options() {
        LocalJobOptions o;
        o.databasePath = m_dir.filePath("runs.db").toStdString();
        o.pollInterval = std::chrono::milliseconds(50);
        return o;
    }

private slots:
    void initTestCase() {
        QProcess probe;
        probe.start("mpirun", {"--version"});
        if (!probe.waitForFinished() || probe.exitCode() != 0)
            QSKIP("mpirun is not installed (openmpi-bin)");
    }

    void aJobIsFollowedLikeARunOfThisProcess() {
        RunConfig config = jobConfig();
        config.set("max_steps", "6");
        Collector events;
        LocalJobSession job(config, options(), {&events});
        const RunFinishedEvent end = job.run();
        QVERIFY2(end.status == RunStatus::Completed, end.error.c_str());
        const std::vector<Event> all = events.events();
        QVERIFY(!all.empty());
        const auto* started = std::get_if<RunStartedEvent>(&all.front());
        QVERIFY(started);
        QCOMPARE(started->runId, job.runId());
        QVERIFY(std::holds_alternative<RunFinishedEvent>(all.back()));
        const auto steps = events.all<StepEvent>();
        QCOMPARE(steps.size(), std::size_t{6});
        for (std::size_t i = 0; i < steps.size(); ++i) {
            QCOMPARE(steps[i].step, static_cast<int64_t>(i + 1));
            QCOMPARE(steps[i].ranks.size(), std::size_t{2});
        }
        QCOMPARE(end.summary.steps, int64_t{6});
        QVERIFY(!end.checkpoint.empty());
        QVERIFY(!events.all<LogEvent>().empty()); // the ranks' log, read back from the store
        RunStore store(options().databasePath);
        QVERIFY(store.getRun(job.runId()).status == RunStatus::Completed);
    }

    // Stopped after its third logged step: every rank stops after the same step (else the job
    // would hang in its next all-reduce), the checkpoint is written, and the run resumes.
    void aStopReachesEveryRankAndTheRunResumes() {
        RunConfig config = jobConfig();
        config.set("dataset", "spirals");
        config.set("data.synthetic_samples", "60000");
        config.set("max_epochs", "50");
        std::stop_source stop;
        Collector events;
        events.onStep = [&](const StepEvent& s) {
            if (s.step >= 3)
                stop.request_stop();
        };
        LocalJobSession job(config, options(), {&events});
        const RunFinishedEvent end = job.run(stop.get_token());
        QVERIFY2(end.status == RunStatus::Stopped,
                 (toString(end.status) + ": " + end.error).c_str());
        QVERIFY(!end.checkpoint.empty());
        const int64_t stoppedAt = end.summary.steps;
        QVERIFY(stoppedAt >= 3);

        LocalJobOptions again = options();
        again.resumeFrom = end.checkpoint;
        config.set("max_steps", std::to_string(stoppedAt + 4));
        Collector more;
        LocalJobSession resumed(config, again, {&more});
        const RunFinishedEvent last = resumed.run();
        QVERIFY2(last.status == RunStatus::Completed, last.error.c_str());
        QCOMPARE(last.summary.steps, stoppedAt + 4);
        QCOMPARE(more.all<StepEvent>().front().step, stoppedAt + 1);
    }

    void aJobThatCannotStartSaysWhy() {
        LocalJobOptions o = options();
        o.cliPath = "/bin/false";
        Collector events;
        LocalJobSession job(jobConfig(), o, {&events});
        const RunFinishedEvent end = job.run();
        QVERIFY(end.status == RunStatus::Failed);
        QVERIFY2(QString::fromStdString(end.error).contains("exit status 1"), end.error.c_str());
        QVERIFY(std::holds_alternative<RunStartedEvent>(events.events().front()));
    }

    // The ranks cannot open their dataset: rank 0 records the run as failed, naming the file.
    void aJobFailingInItsRanksIsRecordedAsFailed() {
        RunConfig config = jobConfig();
        config.set("dataset", "mnist");
        config.set("data.root", m_dir.filePath("no-such-folder").toStdString());
        Collector events;
        LocalJobSession job(config, options(), {&events});
        const RunFinishedEvent end = job.run();
        QVERIFY(end.status == RunStatus::Failed);
        QVERIFY2(QString::fromStdString(end.error).contains("no-such-folder"), end.error.c_str());
    }

    void aJobNeedsAStore() {
        LocalJobOptions o = options();
        o.databasePath.clear();
        QVERIFY_THROWS_EXCEPTION(ConfigError, LocalJobSession(jobConfig(), o, {}));
    }
};

QTEST_GUILESS_MAIN(TestLocalJobSession)
#include "tst_localjobsession.moc"

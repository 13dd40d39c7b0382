// RunRecorder: batching on the writer thread, flush, periodic commits, samples outside runs,
// failures that never reach the trainer's thread, and the cost of onEvent().
#include "store/runrecorder.h"

#include "store/storeerror.h"
#include "storetestutil.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb;
using namespace tb::test;

class TestRunRecorder : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string dbPath(const char* name) const { return m_dir.filePath(name).toStdString(); }

    static SystemSampleEvent sampleAt(double t) {
        SystemSampleEvent e;
        e.sample.unixTime = t;
        e.sample.host.cpuPercent = 10.0;
        return e;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void recordsAWholeRun() {
        const std::string path = dbPath("whole.db");
        {
            RunRecorder recorder(path);
            recorder.onEvent(sampleAt(1.0)); // before the run: dropped
            recorder.onEvent(runStarted("whole"));
            for (int i = 1; i <= 20; ++i)
                recorder.onEvent(step(i));
            recorder.onEvent(epoch(1, 0.6));
            recorder.onEvent(epoch(2, 0.7));
            recorder.onEvent(sampleAt(1005.0));
            recorder.onEvent(LogEvent{LogLevel::Info, "hello", 1006.0});
            recorder.onEvent(AdviceEvent{"rule", "advice", 3, 1007.0});
            RunFinishedEvent f;
            f.status = RunStatus::Stopped;
            f.summary.steps = 20;
            f.summary.peakMemoryBytes = 123456;
            recorder.onEvent(f);
            recorder.onEvent(sampleAt(2000.0)); // after the run: dropped
            QCOMPARE(recorder.runId(), std::string("whole"));
        } // the destructor commits everything
        RunStore store(path);
        const RunRecord r = store.getRun("whole");
        QCOMPARE(toString(r.status), std::string("stopped"));
        QCOMPARE(r.steps, int64_t{20});
        QCOMPARE(r.epochs, int64_t{2});
        QCOMPARE(r.bestValAcc.value_or(-1), 0.7); // from the epochs: the summary had none
        QCOMPARE(r.bestEpoch.value_or(-1), int64_t{2});
        QCOMPARE(r.peakMemoryBytes.value_or(0), uint64_t{123456});
        QVERIFY(r.endedAt.has_value());
        QCOMPARE(store.stepMetrics("whole").size(), std::size_t{20});
        QCOMPARE(store.epochMetrics("whole").size(), std::size_t{2});
        QCOMPARE(store.systemSamples("whole").size(), std::size_t{1});
        QCOMPARE(store.events("whole").size(), std::size_t{2});
    }

    void generatesAnIdWhenNoneIsGiven() {
        const std::string path = dbPath("noid.db");
        std::string id;
        {
            RunRecorder recorder(path);
            recorder.onEvent(runStarted(""));
            id = recorder.runId();
        }
        QCOMPARE(id.size(), std::string("20261130-093012-3f2a9c1e07b4").size());
        RunStore store(path);
        QCOMPARE(store.getRun(id).id, id);
    }

    void flushMakesEventsVisibleToReaders() {
        const std::string path = dbPath("flush.db");
        RunRecorderOptions options;
        options.commitInterval = std::chrono::hours(1); // only flush() commits
        RunRecorder recorder(path, options);
        RunStore reader(path);
        recorder.onEvent(runStarted("f"));
        for (int i = 1; i <= 100; ++i)
            recorder.onEvent(step(i));
        QVERIFY(recorder.flush());
        QCOMPARE(reader.stepMetrics("f").size(), std::size_t{100});
        QCOMPARE(reader.getRun("f").steps, int64_t{100});
        QCOMPARE(toString(reader.getRun("f").status), std::string("running"));
        QVERIFY(recorder.flush()); // nothing queued: returns at once
    }

    void commitsPeriodically() {
        const std::string path = dbPath("periodic.db");
        RunRecorderOptions options;
        options.commitInterval = std::chrono::milliseconds(50);
        RunRecorder recorder(path, options);
        RunStore reader(path);
        recorder.onEvent(runStarted("p"));
        recorder.onEvent(step(1));
        QTRY_COMPARE_WITH_TIMEOUT(reader.stepMetrics("p").size(), std::size_t{1}, 2000);
    }

    void runFinishedCommitsAtOnce() {
        const std::string path = dbPath("finish.db");
        RunRecorderOptions options;
        options.commitInterval = std::chrono::hours(1);
        RunRecorder recorder(path, options);
        RunStore reader(path);
        recorder.onEvent(runStarted("done"));
        recorder.onEvent(RunFinishedEvent{});
        auto status = [&] {
            const auto runs = reader.listRuns();
            return runs.empty() ? std::string("none") : toString(runs.front().status);
        };
        QTRY_COMPARE_WITH_TIMEOUT(status(), std::string("completed"), 2000);
    }

    // A full disk: what fitted stays, the rest is counted lost, and the run's end is still
    // recorded (it used to read as interrupted at the last step that fitted).
    void fullDiskStillRecordsTheRunsEnd() {
        const std::string path = dbPath("full.db");
        RunRecorderOptions options;
        options.store.maxPageCount = 40; // the schema needs about 20 pages
        options.closePatience = std::chrono::milliseconds(300);
        RunRecorder recorder(path, options);
        recorder.onEvent(runStarted("big"));
        for (int i = 1; i <= 10; ++i)
            recorder.onEvent(step(i));
        QVERIFY(recorder.flush());
        for (int i = 11; i <= 20000; ++i)
            recorder.onEvent(step(i));
        QVERIFY(!recorder.flush(std::chrono::milliseconds(200)));
        QVERIFY(recorder.waiting()); // a full disk may get space again: retried, not dropped
        QVERIFY(!recorder.failed());
        const std::string error = recorder.lastError();
        QVERIFY2(error.find(path) != std::string::npos, error.c_str());
        QVERIFY2(error.find("disk is full") != std::string::npos, error.c_str());
        RunFinishedEvent f;
        f.summary.steps = 20000;
        recorder.onEvent(f);
        QVERIFY(!recorder.close());
        QVERIFY(recorder.failed());
        QCOMPARE(recorder.lostEvents(), uint64_t{20000 - 10}); // the steps; the end got in
        recorder.onEvent(step(1));                             // ignored, no throw

        RunStore store(path);
        const RunRecord r = store.getRun("big");
        QCOMPARE(toString(r.status), std::string("completed"));
        QCOMPARE(r.steps, int64_t{20000});
        QVERIFY2(r.error.find("could not be recorded") != std::string::npos, r.error.c_str());
        QCOMPARE(store.stepMetrics("big").size(), std::size_t{10});
        QVERIFY(store.checkIntegrity().empty());
    }

    // A locked database holds the events (up to the bound) instead of dropping them all.
    void backlogIsBounded() {
        const std::string path = dbPath("bounded.db");
        { RunStore create(path); }
        SqliteDb holder(path, false, std::chrono::milliseconds(0));
        holder.exec("BEGIN EXCLUSIVE");
        RunRecorderOptions options;
        options.store.busyTimeout = std::chrono::milliseconds(20);
        options.maxQueuedEvents = 100;
        options.closePatience = std::chrono::milliseconds(200);
        RunRecorder recorder(path, options);
        recorder.onEvent(runStarted("held"));
        for (int i = 1; i <= 1000; ++i)
            recorder.onEvent(step(i));
        recorder.onEvent(RunFinishedEvent{}); // a run's end is kept past the bound
        QCOMPARE(recorder.lostEvents(), uint64_t{1000 - 99});
        QVERIFY(!recorder.flush(std::chrono::milliseconds(100)));
        holder.exec("ROLLBACK");
        QVERIFY(!recorder.close()); // everything held lands, but some events were lost
        RunStore store(path);
        QCOMPARE(toString(store.getRun("held").status), std::string("completed"));
        QCOMPARE(store.stepMetrics("held").size(), std::size_t{99});
    }

    // train --resume that fails in setup (a changed model, a moved dataset, a missing device):
    // the start goes out with resumed step 0, which used to delete every step and mark the
    // finished run failed.
    void resumeThatFailsBeforeItsFirstStepChangesNothing() {
        const std::string path = dbPath("resume-fails.db");
        {
            RunRecorder recorder(path);
            recorder.onEvent(runStarted("done"));
            for (int i = 1; i <= 20; ++i)
                recorder.onEvent(step(i));
            recorder.onEvent(epoch(1, 0.6));
            recorder.onEvent(epoch(2, 0.7));
            RunFinishedEvent f;
            f.summary.steps = 20;
            recorder.onEvent(f);
        }
        {
            RunRecorder recorder(path);
            RunStartedEvent again = runStarted("done", "changed", "resnet20");
            again.resumed = true; // resumedFromStep stays 0: setup failed before loading
            recorder.onEvent(again);
            recorder.onEvent(LogEvent{LogLevel::Info, "training memory estimate", 2000.0});
            recorder.onEvent(sampleAt(2001.0));
            RunFinishedEvent failed;
            failed.status = RunStatus::Failed;
            failed.error = "model.hidden: the checkpoint's shapes do not match";
            recorder.onEvent(failed);
            QVERIFY(recorder.close());
        }
        RunStore store(path);
        const RunRecord r = store.getRun("done");
        QCOMPARE(toString(r.status), std::string("completed"));
        QCOMPARE(r.model, std::string("mlp"));
        QCOMPARE(r.name, std::string("run"));
        QCOMPARE(r.steps, int64_t{20});
        QCOMPARE(r.epochs, int64_t{2});
        QCOMPARE(r.resumedFromStep, int64_t{0});
        QVERIFY(r.error.empty());
        QCOMPARE(store.stepMetrics("done").size(), std::size_t{20});
        QCOMPARE(store.epochMetrics("done").size(), std::size_t{2});
        QVERIFY(store.systemSamples("done").empty());
        const auto log = store.events("done");
        QCOMPARE(log.size(), std::size_t{1}); // only why the resume failed
        QVERIFY2(log[0].message.find("shapes do not match") != std::string::npos,
                 log[0].message.c_str());
    }

    // A resume that trains takes over the record from its first step: replayed steps go, what
    // it logged before that step is kept.
    void resumeThatTrainsContinuesTheRecord() {
        const std::string path = dbPath("resume-trains.db");
        {
            RunRecorder recorder(path);
            recorder.onEvent(runStarted("r"));
            for (int i = 1; i <= 20; ++i)
                recorder.onEvent(step(i));
            RunFinishedEvent stopped;
            stopped.status = RunStatus::Stopped;
            recorder.onEvent(stopped);
        }
        {
            RunRecorder recorder(path);
            RunStartedEvent again = runStarted("r");
            again.resumed = true;
            again.resumedFromStep = 10;
            recorder.onEvent(again);
            recorder.onEvent(LogEvent{LogLevel::Info, "before the first step", 2000.0});
            for (int i = 11; i <= 15; ++i)
                recorder.onEvent(step(i, 5000.0));
            recorder.onEvent(RunFinishedEvent{});
            QVERIFY(recorder.close());
        }
        RunStore store(path);
        const RunRecord r = store.getRun("r");
        QCOMPARE(toString(r.status), std::string("completed"));
        QCOMPARE(r.resumedFromStep, int64_t{10});
        const auto steps = store.stepMetrics("r");
        QCOMPARE(steps.size(), std::size_t{15});
        QCOMPARE(steps[9].unixTime, step(10).unixTime);          // kept from the first session
        QCOMPARE(steps[10].unixTime, step(11, 5000.0).unixTime); // written by the resume
        QCOMPARE(store.events("r").size(), std::size_t{1});
    }

    // Two runs of one sweep drew the same id: the second must not merge into the first.
    void newRunUnderATakenIdIsNotRecordedOverIt() {
        const std::string path = dbPath("same-id.db");
        RunRecorder recorder(path);
        recorder.onEvent(runStarted("same", "first"));
        recorder.onEvent(step(1));
        recorder.onEvent(RunFinishedEvent{});
        QVERIFY(recorder.flush());
        recorder.onEvent(runStarted("same", "second", "resnet20"));
        recorder.onEvent(step(1, 9000.0));
        QVERIFY(!recorder.close());
        QVERIFY2(recorder.lastError().find("already recorded") != std::string::npos,
                 recorder.lastError().c_str());
        RunStore store(path);
        QCOMPARE(store.getRun("same").name, std::string("first"));
        QCOMPARE(store.stepMetrics("same").front().unixTime, step(1).unixTime);
    }

    // The trainer's cost of recording: a copy and a push under a mutex. Printed for the lead;
    // the bound is loose so a loaded CI machine does not fail it.
    void onEventIsCheap() {
        RunRecorderOptions options;
        options.commitInterval = std::chrono::hours(1); // measure the queue, not the disk
        RunRecorder recorder(dbPath("cheap.db"), options);
        recorder.onEvent(runStarted("cheap"));
        const Event e = step(1);
        constexpr int kEvents = 100000;
        QElapsedTimer timer;
        timer.start();
        for (int i = 0; i < kEvents; ++i)
            recorder.onEvent(e);
        const double nsPerEvent = double(timer.nsecsElapsed()) / kEvents;
        qInfo("RunRecorder::onEvent(StepEvent): %.0f ns per event", nsPerEvent);
        QVERIFY2(nsPerEvent < 20000.0, "onEvent must only queue");
        timer.restart();
        QVERIFY(recorder.flush());
        qInfo("committing %d steps in one transaction: %lld ms", kEvents, timer.elapsed());
    }
};

QTEST_GUILESS_MAIN(TestRunRecorder)
#include "tst_runrecorder.moc"

// RunTail and the incremental reads under it: a follower gets each row exactly once, in order,
// only what landed since its last poll, nothing while the file is unchanged (data_version), and
// notices when the run ends or is deleted by another connection.
#include "storetestutil.h"

#include "store/runtail.h"

#include <QTemporaryDir>

using namespace tb;
using namespace tb::test;

class TestRunTail : public QObject {
    Q_OBJECT
private slots:
    void incrementalReadsReturnOnlyLaterRows() {
        QTemporaryDir dir;
        RunStore store((dir.path() + "/runs.db").toStdString());
        store.beginTransaction();
        store.beginRun(runStarted("r"), 1000.0);
        for (int i = 1; i <= 30; ++i)
            store.addStep("r", step(i));
        store.addEpoch("r", epoch(1, 0.5));
        store.addEpoch("r", epoch(2, 0.6));
        store.commit();
        QCOMPARE(store.stepMetrics("r").size(), std::size_t{30});
        const std::vector<StepEvent> after = store.stepMetrics("r", 25);
        QCOMPARE(after.size(), std::size_t{5});
        QCOMPARE(after.front().step, int64_t{26});
        QCOMPARE(store.stepMetrics("r", 10, 12).size(), std::size_t{2}); // (10, 12]
        QCOMPARE(store.epochMetrics("r", 1).size(), std::size_t{1});
    }

    // The data version moves when another connection commits, and only then.
    void dataVersionTellsOfOtherWriters() {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/runs.db").toStdString();
        RunStore writer(path), reader(path);
        const int64_t before = reader.dataVersion();
        QCOMPARE(reader.dataVersion(), before);
        writer.beginTransaction();
        writer.beginRun(runStarted("r"), 1.0);
        writer.commit();
        QVERIFY(reader.dataVersion() != before);
    }

    void followsARunWhileItIsWritten() {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/runs.db").toStdString();
        RunStore writer(path), reader(path);
        writer.beginTransaction();
        writer.beginRun(runStarted("r"), 1000.0);
        for (int i = 1; i <= 10; ++i)
            writer.addStep("r", step(i));
        writer.commit();

        RunTail tail(reader, "r");
        RunTailUpdate u = tail.poll();
        QCOMPARE(u.steps.size(), std::size_t{10});
        QVERIFY(u.record && u.record->status == RunStatus::Running);
        QVERIFY(!tail.finished());
        QVERIFY2(tail.poll().empty(), "nothing was committed: nothing to read");

        writer.beginTransaction();
        for (int i = 11; i <= 15; ++i)
            writer.addStep("r", step(i));
        writer.addEpoch("r", epoch(1, 0.7));
        writer.commit();
        u = tail.poll();
        QCOMPARE(u.steps.size(), std::size_t{5});
        QCOMPARE(u.steps.front().step, int64_t{11});
        QCOMPARE(u.epochs.size(), std::size_t{1});

        writer.beginTransaction();
        RunFinishedEvent f;
        f.status = RunStatus::Completed;
        writer.finishRun("r", f, 2000.0);
        writer.commit();
        u = tail.poll();
        QVERIFY(u.steps.empty());
        QVERIFY(u.record && u.record->status == RunStatus::Completed);
        QVERIFY(tail.finished());
    }

    void noticesADeletedRun() {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/runs.db").toStdString();
        RunStore writer(path), reader(path);
        writer.beginTransaction();
        writer.beginRun(runStarted("r"), 1000.0);
        writer.addStep("r", step(1));
        writer.commit();
        RunTail tail(reader, "r");
        QCOMPARE(tail.poll().steps.size(), std::size_t{1});
        writer.deleteRun("r");
        QVERIFY(tail.poll().deleted);
        QVERIFY(tail.finished());
    }
};

QTEST_GUILESS_MAIN(TestRunTail)
#include "tst_runtail.moc"

// RunController: trains on its own thread while the event loop keeps turning, pauses between
// steps, stops mid-epoch, and records every run in the run store.
#include "runcontroller.h"
#include "store/runstore.h"
#include "uitestutil.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb;
using tb::ui::RunController;

Q_DECLARE_METATYPE(tb::ui::RunController::State)
Q_DECLARE_METATYPE(tb::RunFinishedEvent)

namespace {

TelemetryOptions hostOnly() {
    TelemetryOptions t;
    t.gpus = false;
    t.interval = std::chrono::milliseconds(100);
    return t;
}

} // namespace

class TestRunController : public QObject {
    Q_OBJECT
private slots:
    // While the trainer runs, a 10 ms timer on the UI thread keeps firing: the window never
    // freezes. Steps arrive in batches, the run ends completed and is in the store.
    void trainsOffTheUiThreadAndRecordsTheRun() {
        QTemporaryDir dir;
        const QString db = dir.filePath("runs.db");
        RunController controller(db, hostOnly());
        QSignalSpy finished(&controller, &RunController::runFinished);
        std::vector<StepEvent> steps;
        int batches = 0;
        connect(&controller, &RunController::stepsArrived, this,
                [&](const std::vector<StepEvent>& s) {
                    steps.insert(steps.end(), s.begin(), s.end());
                    ++batches;
                });
        RunFinishedEvent result;
        connect(&controller, &RunController::runFinished, this,
                [&](const RunFinishedEvent& e) { result = e; });
        int ticksWhileTraining = 0;
        QTimer heartbeat;
        connect(&heartbeat, &QTimer::timeout, this, [&] {
            if (controller.state() == RunController::State::Running)
                ++ticksWhileTraining;
        });
        heartbeat.start(10);

        QVERIFY(controller.start(test::tinyRunConfig(dir.filePath("ckpt"), 3)));
        QVERIFY(!controller.start(test::tinyRunConfig(dir.filePath("ckpt")))); // one at a time
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QTRY_COMPARE(controller.state(), RunController::State::Idle);
        QCOMPARE(toString(result.status), std::string("completed"));
        QCOMPARE(steps.size(), std::size_t{33});
        QCOMPARE(steps.back().step, int64_t{33});
        QVERIFY(batches >= 1);
        QVERIFY2(ticksWhileTraining >= 3, qPrintable(QString::number(ticksWhileTraining)));

        RunStoreOptions ro;
        ro.readOnly = true;
        RunStore store(db.toStdString(), ro);
        const auto runs = store.listRuns();
        QCOMPARE(runs.size(), std::size_t{1});
        QCOMPARE(toString(runs[0].status), std::string("completed"));
        QCOMPARE(store.stepMetrics(runs[0].id).size(), std::size_t{33});
        QCOMPARE(store.epochMetrics(runs[0].id).size(), std::size_t{3});
    }

    void pauseHoldsTheRunUntilResume() {
        QTemporaryDir dir;
        RunController controller(dir.filePath("runs.db"), hostOnly());
        QSignalSpy finished(&controller, &RunController::runFinished);
        QStringList log;
        connect(&controller, &RunController::logMessage, this,
                [&](LogLevel, const QString& m) { log << m; });
        int64_t lastStep = 0;
        connect(&controller, &RunController::stepsArrived, this,
                [&](const std::vector<StepEvent>& s) {
                    lastStep = s.back().step;
                    if (lastStep >= 2)
                        controller.pause();
                });
        QVERIFY(controller.start(test::tinyRunConfig(dir.filePath("ckpt"), 20)));
        QTRY_VERIFY_WITH_TIMEOUT(!log.filter("paused after step").isEmpty(), 60000);
        QCOMPARE(controller.state(), RunController::State::Paused);
        const int64_t pausedAt = lastStep;
        QVERIFY(pausedAt < 220);
        // A paused run reports nothing new while time passes (three telemetry samples).
        QSignalSpy steps(&controller, &RunController::stepsArrived);
        QSignalSpy samples(&controller, &RunController::systemSamplesArrived);
        QTRY_VERIFY_WITH_TIMEOUT(samples.count() >= 3, 10000);
        QCOMPARE(steps.count(), 0);
        disconnect(&controller, &RunController::stepsArrived, this, nullptr);
        controller.resume();
        QCOMPARE(controller.state(), RunController::State::Running);
        QTRY_VERIFY_WITH_TIMEOUT(steps.count() > 0, 60000);
        controller.stop();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        const auto f = finished.at(0).at(0).value<RunFinishedEvent>();
        QCOMPARE(toString(f.status), std::string("stopped"));
    }

    // Stop mid-epoch: the run ends `stopped` at a step inside the first epoch, with a checkpoint.
    // Paused first (it holds between two steps), then stopped: where the stop lands does not
    // depend on how fast the machine trains.
    void stopMidEpoch() {
        QTemporaryDir dir;
        RunController controller(dir.filePath("runs.db"), hostOnly());
        RunFinishedEvent result;
        bool done = false;
        int64_t pausedAt = -1;
        connect(&controller, &RunController::runFinished, this, [&](const RunFinishedEvent& e) {
            result = e;
            done = true;
        });
        connect(&controller, &RunController::stepsArrived, this,
                [&](const std::vector<StepEvent>& steps) {
                    if (pausedAt < 0) {
                        controller.pause();
                        pausedAt = steps.back().step;
                    }
                });
        RunConfig config = test::tinyRunConfig(dir.filePath("ckpt"), 5);
        config.set("data.synthetic_samples", "8000"); // epochs of about 200 steps
        QVERIFY(controller.start(config));
        QTRY_COMPARE_WITH_TIMEOUT(controller.state(), RunController::State::Paused, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(pausedAt > 0, 60000);
        controller.stop();
        QTRY_VERIFY_WITH_TIMEOUT(done, 60000);
        QCOMPARE(toString(result.status), std::string("stopped"));
        // The pause took effect after the step in progress when it was asked for.
        QVERIFY2(
            result.summary.steps <= pausedAt + 2,
            qPrintable(
                QString("paused at %1, stopped at %2").arg(pausedAt).arg(result.summary.steps)));
        QVERIFY(result.summary.steps < 200); // inside the first epoch
        QVERIFY(!result.checkpoint.empty());
        QTRY_COMPARE(controller.state(), RunController::State::Idle);
    }

    // A failed run leaves the controller ready for the next one.
    void failedRunKeepsTheControllerUsable() {
        QTemporaryDir dir;
        RunController controller(dir.filePath("runs.db"), hostOnly());
        QSignalSpy finished(&controller, &RunController::runFinished);
        RunConfig bad = test::tinyRunConfig(dir.filePath("ckpt"));
        bad.set("data.root", dir.filePath("missing").toStdString());
        bad.set("dataset", "fashion-mnist");
        QVERIFY(controller.start(bad));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        const auto f = finished.at(0).at(0).value<RunFinishedEvent>();
        QCOMPARE(toString(f.status), std::string("failed"));
        QVERIFY(f.failure.kind == FailureKind::Dataset);
        QTRY_COMPARE(controller.state(), RunController::State::Idle);
        QVERIFY(controller.start(test::tinyRunConfig(dir.filePath("ckpt"), 1)));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 60000);
        QCOMPARE(toString(finished.at(1).at(0).value<RunFinishedEvent>().status),
                 std::string("completed"));
    }

    // ranks=2: a data-parallel job of two processes, followed through the store; the window
    // sees the same signals, each step with both ranks' times; it cannot pause, and Stop
    // reaches both ranks.
    void aJobOfTwoRanksIsFollowedLikeALocalRun() {
        QProcess probe;
        probe.start("mpirun", {"--version"});
        if (!probe.waitForFinished() || probe.exitCode() != 0)
            QSKIP("mpirun is not installed (openmpi-bin)");
        QTemporaryDir dir;
        RunController controller(dir.filePath("runs.db"), hostOnly());
        QSignalSpy started(&controller, &RunController::runStarted);
        RunFinishedEvent result;
        bool done = false;
        std::vector<StepEvent> steps;
        connect(&controller, &RunController::stepsArrived, this,
                [&](const std::vector<StepEvent>& s) {
                    steps.insert(steps.end(), s.begin(), s.end());
                    if (steps.size() >= 3)
                        controller.stop();
                });
        connect(&controller, &RunController::runFinished, this, [&](const RunFinishedEvent& e) {
            result = e;
            done = true;
        });
        RunConfig config = test::tinyRunConfig(dir.filePath("ckpt"), 50);
        config.set("dataset", "spirals");
        config.set("data.synthetic_samples", "60000");
        config.set("model", "mlp");
        config.set("threads", "1");
        config.set("ranks", "2");
        QVERIFY(controller.start(config));
        QVERIFY(!controller.canPause());
        QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(done, 120000);
        QVERIFY2(result.status == RunStatus::Stopped,
                 (toString(result.status) + ": " + result.error).c_str());
        QVERIFY(!result.checkpoint.empty());
        QVERIFY(steps.size() >= 3);
        for (const StepEvent& s : steps)
            QCOMPARE(s.ranks.size(), std::size_t{2});
        QTRY_COMPARE(controller.state(), RunController::State::Idle);
    }

    // Telemetry flows with no run: the hardware panel is live before the first Train.
    void samplesArriveWithoutARun() {
        QTemporaryDir dir;
        RunController controller(dir.filePath("runs.db"), hostOnly());
        QSignalSpy samples(&controller, &RunController::systemSamplesArrived);
        QTRY_VERIFY_WITH_TIMEOUT(samples.count() >= 2, 10000);
    }
};

QTEST_MAIN(TestRunController)
#include "tst_runcontroller.moc"

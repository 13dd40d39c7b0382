// The trainer end to end on synthetic data: the same seed gives bit-identical losses, a run
// resumed from a checkpoint continues the same trajectory, max_steps and stop are honoured.
#include "core/processmemory.h"
#include "support/runconfigs.h"
#include "support/runlog.h"
#include "train/trainer.h"

#include <condition_variable>
#include <mutex>
#include <thread>

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace tb;

namespace {

class StopAfter final : public EventSink {
public:
    StopAfter(std::stop_source& s, int64_t step) : m_source(s), m_step(step) {}
    void onEvent(const Event& e) override {
        if (const auto* s = std::get_if<StepEvent>(&e); s && s->step >= m_step)
            m_source.request_stop();
    }

private:
    std::stop_source& m_source;
    int64_t m_step;
};

// Pauses the trainer when it reports `step`, and keeps the order of steps and pauses.
class PauseRecorder final : public EventSink {
public:
    void pauseAt(Trainer& trainer, int64_t step) {
        m_trainer = &trainer;
        m_step = step;
    }
    void onEvent(const Event& e) override {
        std::lock_guard lock(m_mutex);
        if (const auto* s = std::get_if<StepEvent>(&e)) {
            losses.push_back(s->loss);
            if (s->step >= m_step - 1 && s->step <= m_step + 1)
                order.push_back("step " + std::to_string(s->step));
            if (s->step == m_step)
                m_trainer->pause();
        } else if (const auto* p = std::get_if<PauseEvent>(&e)) {
            order.push_back((p->paused ? "paused at " : "resumed at ") + std::to_string(p->step));
            m_paused = m_paused || p->paused;
            m_changed.notify_all();
        }
    }
    bool waitForPause() {
        std::unique_lock lock(m_mutex);
        return m_changed.wait_for(lock, std::chrono::seconds(60), [&] { return m_paused; });
    }
    std::vector<std::string> order; // read after the run
    std::vector<double> losses;

private:
    Trainer* m_trainer = nullptr;
    int64_t m_step = 0;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_paused = false;
};

QString status(RunStatus s) {
    return QString::fromStdString(toString(s));
}

RunConfig smallConfig(const QString& dir, const QString& model = "fmnist-cnn") {
    RunConfig c = test::shapesRunConfig(dir.toStdString(), model.toStdString());
    c.set("lr", "0.05");
    c.set("num_workers", "2");
    return c;
}

} // namespace

class TestTrainer : public QObject {
    Q_OBJECT
private slots:
    void sameSeedSameLossesBitForBit_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("fmnist-cnn") << QString("fmnist-cnn");
        QTest::newRow("mlp") << QString("mlp");
    }
    void sameSeedSameLossesBitForBit() {
        QFETCH(QString, model);
        QTemporaryDir d1, d2;
        test::RunLog a, b;
        RunConfig c1 = smallConfig(d1.path(), model);
        RunConfig c2 = smallConfig(d2.path(), model);
        c2.set("num_workers", "0"); // the loader's thread count must not matter either
        QCOMPARE(status(Trainer(c1, a).run().status), QString("completed"));
        QCOMPARE(status(Trainer(c2, b).run().status), QString("completed"));
        QCOMPARE(a.losses().size(), std::size_t{22});
        QCOMPARE(a.losses(), b.losses());
        QCOMPARE(a.valLosses(), b.valLosses());
        // Training accuracy of each epoch, counted on the device: a fraction that learns.
        QCOMPARE(a.trainAccs().size(), std::size_t{2});
        QVERIFY(a.trainAccs()[0] > 0.0 && a.trainAccs()[1] <= 1.0);
        QVERIFY2(a.trainAccs()[1] > 1.0 / 3.0, qPrintable(QString::number(a.trainAccs()[1])));
        QCOMPARE(a.trainAccs(), b.trainAccs());
    }

    // Changing max_epochs reshapes a cosine schedule, so this one trains at a constant rate;
    // stopMidEpochAndResume covers the default cosine schedule.
    void resumeAfterEpochContinuesTheTrajectory() {
        QTemporaryDir full, part;
        test::RunLog straight;
        RunConfig whole = smallConfig(full.path());
        whole.set("lr_schedule", "constant");
        Trainer(whole, straight).run();

        RunConfig first = smallConfig(part.path());
        first.set("lr_schedule", "constant");
        first.set("max_epochs", "1");
        test::RunLog one;
        const auto f = Trainer(first, one).run();
        QVERIFY(!f.checkpoint.empty());
        RunConfig second = Trainer::configFromCheckpoint(f.checkpoint);
        second.set("max_epochs", "2");
        test::RunLog two;
        TrainerOptions o;
        o.resumeFrom = f.checkpoint;
        QCOMPARE(status(Trainer(second, two, o).run().status), QString("completed"));
        std::vector<double> joined = one.losses();
        const std::vector<double> rest = two.losses();
        joined.insert(joined.end(), rest.begin(), rest.end());
        QCOMPARE(joined, straight.losses());
        QCOMPARE(two.valLosses().back(), straight.valLosses().back());
    }

    void stopMidEpochAndResume() {
        QTemporaryDir full, part;
        test::RunLog straight;
        Trainer(smallConfig(full.path(), "mlp"), straight).run();

        std::stop_source stop;
        StopAfter stopper(stop, 3);
        EventFanout fan;
        test::RunLog one;
        fan.add(&one);
        fan.add(&stopper);
        const auto f = Trainer(smallConfig(part.path(), "mlp"), fan).run(stop.get_token());
        QCOMPARE(status(f.status), QString("stopped"));
        QCOMPARE(one.losses().size(), std::size_t{3});
        test::RunLog two;
        TrainerOptions o;
        o.resumeFrom = f.checkpoint;
        Trainer(Trainer::configFromCheckpoint(f.checkpoint), two, o).run();
        std::vector<double> joined = one.losses();
        const std::vector<double> rest = two.losses();
        joined.insert(joined.end(), rest.begin(), rest.end());
        QCOMPARE(joined, straight.losses());
    }

    // Epoch checkpoints rotate: the last keep_last_checkpoints stay, plus last and best.
    void checkpointsRotate() {
        QTemporaryDir d;
        RunConfig c = smallConfig(d.path(), "mlp");
        c.set("max_epochs", "4");
        c.set("keep_last_checkpoints", "2");
        test::RunLog col;
        const auto f = Trainer(c, col).run();
        QCOMPARE(status(f.status), QString("completed"));
        const QStringList files =
            QDir(d.path()).entryList({"*.safetensors"}, QDir::Files, QDir::Name);
        QCOMPARE(files, (QStringList{"best.safetensors", "epoch-0003.safetensors",
                                     "epoch-0004.safetensors", "last.safetensors"}));
        QVERIFY(f.checkpoint.ends_with("epoch-0004.safetensors"));
    }

    void maxStepsBoundsTheRun() {
        QTemporaryDir d;
        RunConfig c = smallConfig(d.path(), "mlp");
        c.set("max_steps", "7");
        c.set("accumulate_grad_batches", "2");
        test::RunLog col;
        const auto f = Trainer(c, col).run();
        QCOMPARE(status(f.status), QString("completed"));
        QCOMPARE(f.summary.steps, int64_t{7});
        QCOMPARE(col.losses().size(), std::size_t{7});
        // 11 micro-batches, 6 steps an epoch: epoch 1 completes, and the run ends inside
        // epoch 2, which is validated there, once, where the run ended.
        QCOMPARE(col.epochs.size(), std::size_t{2});
        QVERIFY(!col.epochs[0].partial);
        QCOMPARE(col.epochs[0].step, int64_t{6});
        QVERIFY(col.epochs[1].partial);
        QCOMPARE(col.epochs[1].epoch, int64_t{2});
        QCOMPARE(col.epochs[1].step, int64_t{7});
        QVERIFY(col.epochs[1].valAcc > 0.0 && col.epochs[1].valLoss > 0.0);
        QCOMPARE(f.summary.finalValAcc, col.epochs[1].valAcc);
        QCOMPARE(f.summary.epochs, int64_t{1}); // completed epochs
    }

    void mixedPrecisionTrains() {
        QTemporaryDir d;
        RunConfig c = smallConfig(d.path());
        c.set("precision", "16-mixed");
        c.set("max_epochs", "3");
        test::RunLog col;
        const auto f = Trainer(c, col).run();
        QCOMPARE(status(f.status), QString("completed"));
        QVERIFY2(col.losses().back() < col.losses().front(), "loss did not fall under 16-mixed");
    }

    void badConfigFailsTheRunWithTheField() {
        QTemporaryDir d;
        RunConfig c = smallConfig(d.path());
        c.set("model", "/nonexistent/net.json"); // passes set(), fails when the trainer loads it
        test::RunLog col;
        const auto f = Trainer(c, col).run();
        QCOMPARE(status(f.status), QString("failed"));
        QVERIFY2(QString::fromStdString(f.error).startsWith("model:"), f.error.c_str());
        QVERIFY(f.failure.kind == FailureKind::Config);
        QCOMPARE(f.failure.subject, std::string("model"));
        QVERIFY(f.failure.retryChanges.empty());
        QCOMPARE(col.starts.size(),
                 std::size_t{1}); // the failed run is still announced, so it gets recorded
    }

    // A training split without a single batch is an error naming the split and its size, not
    // a `completed` run of empty epochs (or, under max_steps, an endless one). (A held-out split
    // always leaves a set of two or more samples one to train on, and one sample is one class,
    // refused when the set is opened.)
    void emptyTrainingSplitIsAnError() {
        QTemporaryDir d;
        RunConfig c = smallConfig(d.filePath("checkpoints"), "mlp");
        c.set("dataset", "blobs");
        c.set("data.synthetic_samples", "20");
        c.set("drop_last", "true");
        test::RunLog col;
        const auto f = Trainer(c, col).run();
        QCOMPARE(status(f.status), QString("failed"));
        QVERIFY2(QString::fromStdString(f.error).startsWith(
                     "drop_last: the training split (blobs train) holds 20 samples, fewer than "
                     "batch_size 32"),
                 f.error.c_str());
    }

    // A stop asked for before the first step (during setup) is honoured before training, and
    // the run still leaves a checkpoint to resume from.
    void stopBeforeTheFirstStep() {
        QTemporaryDir d;
        std::stop_source stop;
        stop.request_stop();
        test::RunLog col;
        const auto f = Trainer(smallConfig(d.path(), "mlp"), col).run(stop.get_token());
        QCOMPARE(status(f.status), QString("stopped"));
        QCOMPARE(f.summary.steps, int64_t{0});
        QVERIFY(col.losses().empty());
        QVERIFY(QFile::exists(QString::fromStdString(f.checkpoint)));
    }

    // A loss that turns inf or NaN fails the run at the logged step with advice, instead of
    // training on to a `completed` run of NaN weights.
    void divergingLossFailsTheRun_data() {
        QTest::addColumn<QString>("precision");
        QTest::newRow("32") << QString("32");
        QTest::newRow("bf16-mixed") << QString("bf16-mixed");
        // Every step skipped until the scale is below 1: not an overflow loss scaling can fix.
        QTest::newRow("16-mixed") << QString("16-mixed");
    }
    void divergingLossFailsTheRun() {
        QFETCH(QString, precision);
        QTemporaryDir d;
        RunConfig c = smallConfig(d.path(), "mlp");
        c.set("lr", "100");
        c.set("precision", precision.toStdString());
        test::RunLog col;
        const auto f = Trainer(c, col).run();
        QCOMPARE(status(f.status), QString("failed"));
        const QString error = QString::fromStdString(f.error);
        QVERIFY2(
            error.contains(QRegularExpression("^the training loss is (NaN|inf|-inf) at step \\d+")),
            f.error.c_str());
        QVERIFY2(error.contains("Lower lr (now "), f.error.c_str());
        QVERIFY(f.failure.kind == FailureKind::NonFiniteLoss);
        QCOMPARE(f.failure.subject, std::string("lr"));
        QVERIFY2(error.contains(precision == "16-mixed" ? "not an overflow that loss scaling fixes"
                                                        : "with precision=16-mixed loss scaling"),
                 f.error.c_str());
        // The failing interval is not reported as a point; under 16-mixed the skipped ones are.
        for (const StepEvent& s : col.steps)
            QVERIFY(std::isfinite(s.loss) || (s.skipped && s.lossScale >= 1.0));
    }

    // Under 16-mixed an overflow is the GradScaler's to handle: a scale so large that every
    // early step overflows makes it skip and back off, and the run trains on.
    void skippedStepsUnder16MixedDoNotFailTheRun() {
        QTemporaryDir d;
        RunConfig c = smallConfig(d.path(), "mlp");
        c.set("precision", "16-mixed");
        c.set("amp.init_scale", "1e38");
        test::RunLog col;
        const auto f = Trainer(c, col).run();
        QCOMPARE(status(f.status), QString("completed"));
        QVERIFY(!col.steps.empty() && col.steps.front().skipped);
    }

    // A checkpoint folder that cannot be made fails the run before the first step, naming the
    // key and the path, instead of after an epoch of training at the first save.
    void unwritableCheckpointDirFailsBeforeTraining_data() {
        QTest::addColumn<QString>("sub");
        QTest::newRow("below a file") << QString("file/checkpoints");
        QTest::newRow("a file") << QString("file");
    }
    void unwritableCheckpointDirFailsBeforeTraining() {
        QFETCH(QString, sub);
        QTemporaryDir d;
        QFile file(d.filePath("file"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        const QString dir = d.filePath(sub);
        RunConfig c = smallConfig(dir, "mlp");
        test::RunLog col;
        const auto f = Trainer(c, col).run();
        QCOMPARE(status(f.status), QString("failed"));
        const QString error = QString::fromStdString(f.error);
        QVERIFY2(error.startsWith("checkpoint_dir: "), f.error.c_str());
        QVERIFY2(error.contains(dir), f.error.c_str());
        QVERIFY(col.losses().empty());
    }

    // The validation loss is the mean over samples, whatever the batch size: with weights that
    // cannot move (lr 1e-30, an MLP without batch norm or dropout) batches of 32 and of 7 over
    // the same validation set give the same loss and accuracy, although 32 and 7 leave short
    // last batches of different sizes.
    void validationLossIsAMeanOverSamples() {
        const auto evaluate = [](int batch) {
            QTemporaryDir d;
            RunConfig c = smallConfig(d.path(), "mlp");
            c.set("lr", "1e-30");
            c.set("max_epochs", "1");
            c.set("batch_size", std::to_string(batch));
            test::RunLog col;
            Trainer(c, col).run();
            return col;
        };
        const test::RunLog a = evaluate(32), b = evaluate(7);
        QCOMPARE(a.valLosses().size(), std::size_t{1});
        QCOMPARE(b.valLosses().size(), std::size_t{1});
        qInfo("val loss %.7f (batch 32) vs %.7f (batch 7)", a.valLosses()[0], b.valLosses()[0]);
        QVERIFY(a.valLosses()[0] > 0.5 && a.valLosses()[0] < 2.0); // about ln 3 for 3 classes
        QVERIFY(std::fabs(a.valLosses()[0] - b.valLosses()[0]) < 1e-5);
        QCOMPARE(a.valAccs()[0], b.valAccs()[0]);
    }

    // A run the machine cannot hold fails before anything is allocated, with a typed
    // out-of-memory error giving the estimate, its parts, what is available and what to change;
    // then the next run trains normally. Rows: activations of 65536 x 2^22 floats (1 TiB each,
    // two of them and two gradient buffers as large), and 26G parameters (97 GiB of weights,
    // as much again for gradients and momentum); it used to die of std::bad_alloc.
    void outOfMemoryFailsBeforeAllocating_data() {
        QTest::addColumn<QString>("dataset");
        QTest::addColumn<QString>("hidden");
        QTest::addColumn<QString>("batch");
        QTest::addColumn<QString>("expected");
        QTest::newRow("activations")
            << "spirals"
            << "4194304"
            << "65536"
            << "out of memory on cpu: this run needs about 4.0 TiB at batch_size 65536 (";
        QTest::newRow("parameters") << "shapes"
                                    << "16000000,4000"
                                    << "1"
                                    << "out of memory on cpu: this run needs about 761.4 GiB at "
                                       "batch_size 1 (weights 253.7 GiB, gradients 253.7 GiB, "
                                       "optimizer state 253.7 GiB";
    }
    void outOfMemoryFailsBeforeAllocating() {
        QFETCH(QString, dataset);
        QFETCH(QString, hidden);
        QFETCH(QString, batch);
        QFETCH(QString, expected);
        QTemporaryDir d;
        RunConfig c;
        c.set("dataset", dataset.toStdString());
        c.set("data.image_size", "16");
        c.set("data.synthetic_samples", "65536");
        c.set("model", "mlp");
        c.set("model.hidden", hidden.toStdString());
        c.set("batch_size", batch.toStdString());
        c.set("max_steps", "1");
        c.set("device", "cpu");
        c.set("checkpoint_dir", d.filePath("checkpoints").toStdString());
        test::RunLog col;
        const uint64_t peakBefore = processPeakRssBytes().value_or(0);
        const auto f = Trainer(c, col).run();
        const uint64_t peakAfter = processPeakRssBytes().value_or(0);
        QCOMPARE(status(f.status), QString("failed"));
        const QString error = QString::fromStdString(f.error);
        QVERIFY2(error.startsWith(expected), f.error.c_str());
        QVERIFY2(error.contains(QRegularExpression("\\), more than the [0-9.]+ [KMGT]?i?B "
                                                   "available of [0-9.]+ [KMGT]?i?B\\.")),
                 f.error.c_str());
        QVERIFY2(error.contains("accumulate_grad_batches"), f.error.c_str());
        QVERIFY(!error.contains("This run needs")); // said once, not appended again
        QVERIFY(col.losses().empty());
        QVERIFY(f.failure.kind == FailureKind::OutOfMemory);
        // Half the batch and twice the accumulation; at batch 1 (the weights alone do not fit)
        // there is no such retry to offer.
        using Changes = std::vector<std::pair<std::string, std::string>>;
        const int64_t b = batch.toLongLong();
        const Changes retry =
            b > 1 ? Changes{{"batch_size", std::to_string(b / 2)}, {"accumulate_grad_batches", "2"}}
                  : Changes{};
        QCOMPARE(f.failure.retryChanges, retry);
        QVERIFY(peakAfter - peakBefore < (uint64_t{1} << 30)); // nothing large was touched
        QVERIFY(!QDir(d.filePath("checkpoints")).exists());    // no empty folder left behind
        QTemporaryDir d2;
        test::RunLog ok;
        QCOMPARE(status(Trainer(smallConfig(d2.path(), "mlp"), ok).run().status),
                 QString("completed"));
    }

    // The epoch's training loss is the mean over all its micro-batches, not the last interval's:
    // with one step per interval, the plain mean of that epoch's step losses.
    void epochTrainLossIsTheEpochMean() {
        QTemporaryDir d;
        test::RunLog col;
        QCOMPARE(status(Trainer(smallConfig(d.path()), col).run().status), QString("completed"));
        QCOMPARE(col.epochs.size(), std::size_t{2});
        for (const EpochEvent& epoch : col.epochs) {
            double sum = 0.0;
            int n = 0;
            for (const StepEvent& step : col.steps)
                if (step.epoch == epoch.epoch) {
                    sum += step.loss;
                    ++n;
                }
            QCOMPARE(n, 11); // 330 samples in batches of 32
            QVERIFY2(std::fabs(epoch.trainLoss - sum / n) < 1e-6,
                     qPrintable(QString("%1 vs %2").arg(epoch.trainLoss).arg(sum / n)));
        }
        QVERIFY(col.epochs[0].trainLoss != col.steps[10].loss);
    }

    // pause() holds the loop between two optimizer steps until resume(): no step is reported
    // while paused, and the run then continues the very same trajectory as one never paused.
    // The advisor on real runs: a healthy one is not told that its loss diverges or that memory
    // is full (the timing rules depend on how busy this machine is, so they are checked on
    // made-up intervals in tst_advisor); the same run, its telemetry saying the host is 95%
    // full, is told once, at its first logged step.
    void advisorSpeaksOnRealRuns() {
        QTemporaryDir d;
        RunConfig c = smallConfig(d.path(), "mlp");
        TrainerOptions healthy;
        SystemSample roomy;
        roomy.host.ramTotalBytes = uint64_t(64) << 30;
        roomy.host.ramUsedBytes = uint64_t(8) << 30;
        healthy.latestSample = [roomy] { return std::optional<SystemSample>(roomy); };
        test::RunLog quiet;
        QCOMPARE(status(Trainer(c, quiet, healthy).run().status), QString("completed"));
        for (const AdviceEvent& a : quiet.advice)
            QVERIFY2(a.rule != "diverging" && a.rule != "nan-loss" && a.rule != "memory-full" &&
                         a.rule != "fp16-overflow" && a.rule != "cpu-with-gpu",
                     a.message.c_str());

        QTemporaryDir d2;
        TrainerOptions full;
        SystemSample crowded = roomy;
        crowded.host.ramUsedBytes = uint64_t(61) << 30;
        full.latestSample = [crowded] { return std::optional<SystemSample>(crowded); };
        test::RunLog told;
        QCOMPARE(status(Trainer(smallConfig(d2.path(), "mlp"), told, full).run().status),
                 QString("completed"));
        int memoryFull = 0;
        for (const AdviceEvent& a : told.advice)
            if (a.rule == "memory-full") {
                ++memoryFull;
                QCOMPARE(a.step, int64_t{1});
                QVERIFY2(QString::fromStdString(a.message).contains("host RAM is 95% full"),
                         a.message.c_str());
            }
        QCOMPARE(memoryFull, 1);
    }

    void pauseHoldsBetweenStepsAndResumes() {
        QTemporaryDir d1, d2;
        test::RunLog plain;
        QCOMPARE(status(Trainer(smallConfig(d1.path()), plain).run().status), QString("completed"));

        PauseRecorder log;
        Trainer trainer(smallConfig(d2.path()), log);
        log.pauseAt(trainer, 5);
        RunFinishedEvent finished;
        std::thread worker([&] { finished = trainer.run(); });
        QVERIFY(log.waitForPause());
        QVERIFY(trainer.pauseRequested());
        trainer.resume();
        worker.join();
        QCOMPARE(status(finished.status), QString("completed"));
        QCOMPARE(log.order, (std::vector<std::string>{"step 4", "step 5", "paused at 5",
                                                      "resumed at 5", "step 6"}));
        QCOMPARE(log.losses, plain.losses());
    }

    void stopWhilePausedEndsTheRun() {
        QTemporaryDir d;
        PauseRecorder log;
        Trainer trainer(smallConfig(d.path()), log);
        log.pauseAt(trainer, 3);
        std::stop_source stop;
        RunFinishedEvent finished;
        std::thread worker([&] { finished = trainer.run(stop.get_token()); });
        QVERIFY(log.waitForPause());
        stop.request_stop();
        worker.join();
        QCOMPARE(status(finished.status), QString("stopped"));
        QCOMPARE(finished.summary.steps, int64_t{3});
        QVERIFY(!finished.checkpoint.empty());
        QCOMPARE(log.order.back(), std::string("paused at 3")); // never reported as resumed
    }
};

QTEST_GUILESS_MAIN(TestTrainer)
#include "tst_trainer.moc"

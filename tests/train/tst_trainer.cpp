// The trainer end to end on synthetic data: the same seed gives bit-identical losses, a run
// resumed from a checkpoint continues the same trajectory, max_steps and stop are honoured.
#include "support/runlog.h"
#include "train/trainer.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

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

QString status(RunStatus s) {
    return QString::fromStdString(toString(s));
}

RunConfig smallConfig(const QString& dir, const QString& model = "fmnist-cnn") {
    RunConfig c;
    c.set("dataset", "shapes");
    c.set("data.image_size", "16");
    c.set("data.synthetic_samples", "330"); // the last batch of an epoch is short
    c.set("model", model.toStdString());
    c.set("batch_size", "32");
    c.set("max_epochs", "2");
    c.set("lr", "0.05");
    c.set("log_every_n_steps", "1");
    c.set("threads", "2");
    c.set("num_workers", "2");
    c.set("device", "cpu");
    c.set("checkpoint_dir", dir.toStdString());
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
        QCOMPARE(col.starts.size(),
                 std::size_t{1}); // the failed run is still announced, so it gets recorded
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

    // A batch whose first activation (65536 x 2^22 floats = 1 TiB) no machine holds: the run
    // fails with a typed out-of-memory error that says what was asked, what the machine has,
    // what to change and what the whole run would need (two 1 TiB activations and two gradient
    // buffers as large); then the next run trains normally.
    void outOfMemoryFailsTheRunAndExplains() {
        QFile overcommit("/proc/sys/vm/overcommit_memory");
        if (overcommit.open(QIODevice::ReadOnly) && overcommit.readAll().trimmed() == "1")
            QSKIP("vm.overcommit_memory=1 grants any allocation: 1 TiB would be touched, not "
                  "refused");
        QTemporaryDir d;
        RunConfig c;
        c.set("dataset", "spirals");
        c.set("data.synthetic_samples", "65536");
        c.set("model", "mlp");
        c.set("model.hidden", "4194304");
        c.set("batch_size", "65536");
        c.set("max_steps", "1");
        c.set("device", "cpu");
        c.set("checkpoint_dir", d.path().toStdString());
        test::RunLog col;
        const auto f = Trainer(c, col).run();
        QCOMPARE(status(f.status), QString("failed"));
        const QString error = QString::fromStdString(f.error);
        QVERIFY2(error.startsWith("out of memory on cpu: asked for 1.0 TiB"), f.error.c_str());
        QVERIFY2(error.contains("accumulate_grad_batches"), f.error.c_str());
        QVERIFY2(error.contains("This run needs about 4.0 TiB at batch_size 65536"),
                 f.error.c_str());
        QVERIFY(col.losses().empty());
        QTemporaryDir d2;
        test::RunLog ok;
        QCOMPARE(status(Trainer(smallConfig(d2.path(), "mlp"), ok).run().status),
                 QString("completed"));
    }
};

QTEST_GUILESS_MAIN(TestTrainer)
#include "tst_trainer.moc"

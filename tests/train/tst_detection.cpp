// A detector trained end to end on shapes-detect at 64 px: it completes with YOLOv8's loss,
// learns (the loss falls), validates with COCO's figures (valAcc is mAP50-95, valLoss the sum
// of the three terms), gives the same losses for any number of loader workers, resumes on
// the same trajectory, and refuses a classifier on boxes and a detector on classes. The
// report survives the run store's JSON; its precision and recall are where F1 is best.
#include "core/errors.h"
#include "store/validationreportjson.h"
#include "support/runlog.h"
#include "train/detectionvalidation.h"
#include "train/trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace tb;

namespace {

RunConfig detectionConfig(const QString& dir) {
    RunConfig c;
    c.set("dataset", "shapes-detect"); // implies yolov8n and Ultralytics' recipe
    c.set("data.imgsz", "64");
    c.set("data.synthetic_samples", "40"); // 4 validation images
    c.set("batch_size", "8");
    c.set("max_epochs", "2");
    c.set("warmup_steps", "0");
    c.set("log_every_n_steps", "1");
    c.set("threads", "2");
    c.set("num_workers", "2");
    c.set("device", "cpu");
    c.set("checkpoint_dir", dir.toStdString());
    return c;
}

QString status(RunStatus s) {
    return QString::fromStdString(toString(s));
}

double mean(const std::vector<double>& v, std::size_t from, std::size_t to) {
    double sum = 0;
    for (std::size_t i = from; i < to; ++i)
        sum += v[i];
    return sum / static_cast<double>(to - from);
}

} // namespace

class TestDetection : public QObject {
    Q_OBJECT
private slots:
    void trainsAndValidates() {
        QTemporaryDir dir;
        RunConfig c = detectionConfig(dir.path());
        c.set("data.imgsz", "128");
        c.set("data.synthetic_samples", "64"); // 8 steps an epoch, 6 validation images
        c.set("max_epochs", "6");
        c.set("data.close_mosaic", "1");
        test::RunLog log;
        const RunFinishedEvent finished = Trainer(c, log).run();
        QCOMPARE(status(finished.status), QString("completed"));
        QCOMPARE(log.starts.at(0).config.at("model").get<std::string>(), std::string("yolov8n"));
        const std::vector<double> losses = log.losses();
        QCOMPARE(losses.size(), std::size_t{48});
        for (double l : losses)
            QVERIFY(std::isfinite(l) && l > 0);
        // It learns: the fifth epoch's steps (still mosaics) below the first's. (Validation
        // lags: batch norm's running statistics, at Ultralytics' momentum 0.03, need more steps
        // than this run has; the bench's learning run shows mAP rising.)
        QVERIFY2(mean(losses, 32, 40) < 0.8 * mean(losses, 0, 8),
                 qPrintable(QString("%1 -> %2").arg(mean(losses, 0, 8)).arg(mean(losses, 32, 40))));
        QVERIFY(std::any_of(log.logs.begin(), log.logs.end(), [](const std::string& l) {
            return l.find("close_mosaic: the last 1 epochs train without mosaic") !=
                   std::string::npos;
        }));
        QCOMPARE(log.epochs.size(), std::size_t{6});
        for (const EpochEvent& e : log.epochs) {
            QVERIFY(e.validation.detection.has_value());
            const DetectionReport& d = *e.validation.detection;
            QCOMPARE(d.images, int64_t{6});
            QVERIFY(d.instances > 0 && !d.classes.empty());
            QVERIFY(d.map50 >= 0 && d.map50 <= 1 && d.map5095 <= d.map50);
            QCOMPARE(e.valAcc, d.map5095);
            QCOMPARE(e.valLoss, d.boxLoss + d.clsLoss + d.dflLoss);
            QVERIFY(d.boxLoss > 0 && d.clsLoss > 0 && d.dflLoss > 0);
            QCOMPARE(e.validation.classes, 0); // no confusion matrix for boxes
        }
        // The best epoch is the fittest as Ultralytics picks best.pt: 0.1 mAP50 + 0.9 mAP50-95.
        const auto fittest = std::max_element(
            log.epochs.begin(), log.epochs.end(),
            [](const EpochEvent& a, const EpochEvent& b) { return fitnessOf(a) < fitnessOf(b); });
        QCOMPARE(finished.summary.bestEpoch, fittest->epoch);
        QCOMPARE(finished.summary.bestValAcc, fittest->valAcc);
        QCOMPARE(fitnessOf(*fittest), 0.1 * fittest->validation.detection->map50 +
                                          0.9 * fittest->validation.detection->map5095);
    }

    // loss.box, loss.cls and loss.dfl are the terms' gains: 0 removes a term.
    void lossGainsAreConfigKeys() {
        QTemporaryDir dir;
        RunConfig c = detectionConfig(dir.path());
        c.set("max_epochs", "1");
        c.set("loss.cls", "0");
        c.set("loss.dfl", "3");
        test::RunLog log;
        QCOMPARE(status(Trainer(c, log).run().status), QString("completed"));
        const DetectionReport& d = *log.epochs.at(0).validation.detection;
        QCOMPARE(d.clsLoss, 0.0);
        QVERIFY(d.boxLoss > 0 && d.dflLoss > 0);
    }

    void sameLossesForAnyWorkerCount() {
        QTemporaryDir d1, d2;
        RunConfig a = detectionConfig(d1.path()), b = detectionConfig(d2.path());
        b.set("num_workers", "0");
        test::RunLog la, lb;
        QCOMPARE(status(Trainer(a, la).run().status), QString("completed"));
        QCOMPARE(status(Trainer(b, lb).run().status), QString("completed"));
        QCOMPARE(la.losses(), lb.losses());
        QCOMPARE(la.valLosses(), lb.valLosses());
        QCOMPARE(la.valAccs(), lb.valAccs());
    }

    // Stopped after its first epoch and resumed: the same losses as straight through (mosaic,
    // augmentation and the schedule depend on the epoch and step, not on the process). The
    // mosaic stays on throughout (close_mosaic 0): its closing depends on max_epochs, which the
    // first part changes.
    void resumeContinuesTheTrajectory() {
        QTemporaryDir full, part;
        RunConfig whole = detectionConfig(full.path());
        whole.set("lr_schedule", "constant");
        whole.set("data.close_mosaic", "0");
        test::RunLog straight, one, two;
        QCOMPARE(status(Trainer(whole, straight).run().status), QString("completed"));
        RunConfig first = whole;
        first.set("checkpoint_dir", part.path().toStdString());
        first.set("max_epochs", "1");
        const auto f = Trainer(first, one).run();
        QVERIFY(!f.checkpoint.empty());
        RunConfig second = Trainer::configFromCheckpoint(f.checkpoint);
        second.set("max_epochs", "2");
        TrainerOptions o;
        o.resumeFrom = f.checkpoint;
        QCOMPARE(status(Trainer(second, two, o).run().status), QString("completed"));
        std::vector<double> joined = one.losses();
        const std::vector<double> rest = two.losses();
        joined.insert(joined.end(), rest.begin(), rest.end());
        QCOMPARE(joined, straight.losses());
        QCOMPARE(two.valAccs().back(), straight.valAccs().back());
    }

    void tasksMustMatch_data() {
        QTest::addColumn<QString>("dataset");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("error");
        QTest::newRow("classifier on boxes") << "shapes-detect"
                                             << "fmnist-cnn"
                                             << "is a detection set (images with boxes)";
        QTest::newRow("detector on classes") << "shapes"
                                             << "yolov8n"
                                             << "yolov8n is a detector";
    }
    void tasksMustMatch() {
        QFETCH(QString, dataset);
        QFETCH(QString, model);
        QFETCH(QString, error);
        QTemporaryDir dir;
        RunConfig c = detectionConfig(dir.path());
        c.set("dataset", dataset.toStdString());
        c.set("model", model.toStdString());
        if (dataset == "shapes") {
            c.set("data.image_size", "64");
            c.set("data.synthetic_samples", "20");
        }
        test::RunLog log;
        const RunFinishedEvent r = Trainer(c, log).run();
        QCOMPARE(status(r.status), QString("failed"));
        QVERIFY2(QString::fromStdString(r.error).contains(error), r.error.c_str());
    }

    void reportSurvivesTheStore() {
        ValidationReport r;
        DetectionReport d;
        d.map50 = 0.5;
        d.map5095 = 0.25;
        d.precision = 0.75;
        d.recall = 0.625;
        d.boxLoss = 1.5;
        d.clsLoss = 2.5;
        d.dflLoss = 3.5;
        d.images = 7;
        d.instances = 11;
        d.classes.push_back({"star", 11, 0.5, 0.25, 0.75, 0.625});
        r.detection = d;
        const ValidationReport back = validationReportFromText(validationReportToText(r));
        QVERIFY(back.detection.has_value());
        QCOMPARE(back.detection->map5095, 0.25);
        QCOMPARE(back.detection->dflLoss, 3.5);
        QCOMPARE(back.detection->instances, int64_t{11});
        QCOMPARE(back.detection->classes.at(0).name, std::string("star"));
        QCOMPARE(back.detection->classes.at(0).recall, 0.625);
        QCOMPARE(back.classes, 0);
    }

    // Precision and recall where F1 peaks on the IoU-0.5 curve; classes without ground truth
    // are left out of the means, as COCO leaves them out of mAP.
    void reportTakesTheBestF1() {
        detect::CocoEvalResult result;
        detect::ClassResult a;
        a.category = 0;
        a.groundTruths = 4;
        a.ap = std::vector<double>(10, 0.5);
        a.precision50.assign(101, 0.0);
        for (int i = 0; i <= 50; ++i)
            a.precision50[static_cast<std::size_t>(i)] = 1.0; // precision 1 up to recall 0.5
        for (int i = 51; i <= 80; ++i)
            a.precision50[static_cast<std::size_t>(i)] = 0.6; // then 0.6 up to recall 0.8
        detect::ClassResult none;
        none.category = 1;
        result.classes = {a, none};
        result.map50 = 0.5;
        result.map5095 = 0.5;
        const DetectionReport r = detectionReport(result, {"circle", "square"});
        QCOMPARE(r.classes.size(), std::size_t{1});
        QCOMPARE(r.classes[0].name, std::string("circle"));
        // F1 at recall 0.5: 2 * 0.5 / 1.5 = 0.667; at 0.8: 2 * 0.48 / 1.4 = 0.686 (the best).
        QCOMPARE(r.classes[0].precision, 0.6);
        QCOMPARE(r.classes[0].recall, 0.8);
        QCOMPARE(r.precision, 0.6);
        QCOMPARE(r.instances, int64_t{4});
    }
};

QTEST_GUILESS_MAIN(TestDetection)
#include "tst_detection.moc"

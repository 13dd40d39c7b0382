// A detector trained end to end on shapes-detect at 64 px: it completes with YOLOv8's loss,
// learns (the loss falls), validates with COCO's figures (valAcc is mAP50-95, valLoss the sum
// of the three terms), gives the same losses for any number of loader workers, resumes on
// the same trajectory, and refuses a classifier on boxes and a detector on classes. The
// report survives the run store's JSON; its precision and recall are where F1 is best.
#include "core/errors.h"
#include "data/detectaugment.h"
#include "data/shapesdetect.h"
#include "store/validationreportjson.h"
#include "support/runlog.h"
#include "support/torchreference.h"
#include "train/detectionvalidation.h"
#include "train/detector.h"
#include "train/detectorevaluation.h"
#include "train/trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

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
    // One small detector trained for the suite (shapes-detect at 96 px, 4 epochs of 32 steps,
    // past its 100 warm-up steps), whose log, result and checkpoint the tests below read.
    void initTestCase() {
        RunConfig c = detectionConfig(m_dir.path());
        c.set("data.imgsz", "96");
        c.set("data.synthetic_samples", "512"); // 51 validation images
        c.set("batch_size", "16");
        c.set("warmup_steps", "100");
        c.set("max_epochs", "4");
        c.set("data.close_mosaic", "1");
        m_finished = Trainer(c, m_log).run();
        QCOMPARE(status(m_finished.status), QString("completed"));
        QVERIFY(!m_finished.checkpoint.empty());
    }

    void trainsAndValidates() {
        const test::RunLog& log = m_log;
        const RunFinishedEvent& finished = m_finished;
        QCOMPARE(log.starts.at(0).config.at("model").get<std::string>(), std::string("yolov8n"));
        const std::vector<double> losses = log.losses();
        QCOMPARE(losses.size(), std::size_t{128});
        for (double l : losses)
            QVERIFY(std::isfinite(l) && l > 0);
        // It learns: the third epoch's steps (still mosaics) below the first's, and the last
        // validation below the first (batch norm's running statistics, at Ultralytics'
        // momentum 0.03, lag the first hundred steps; tests/bench/detect.sh has the learning
        // curve to mAP50-95 0.8).
        QVERIFY2(
            mean(losses, 64, 96) < 0.8 * mean(losses, 0, 32),
            qPrintable(QString("%1 -> %2").arg(mean(losses, 0, 32)).arg(mean(losses, 64, 96))));
        const std::vector<double> val = log.valLosses();
        QVERIFY2(val.back() < 0.8 * val.front(),
                 qPrintable(QString("%1 -> %2").arg(val.front()).arg(val.back())));
        QVERIFY(log.epochs.back().validation.detection->map50 > 0);
        QVERIFY(std::any_of(log.logs.begin(), log.logs.end(), [](const std::string& l) {
            return l.find("close_mosaic: the last 1 epochs train without mosaic") !=
                   std::string::npos;
        }));
        QCOMPARE(log.epochs.size(), std::size_t{4});
        for (const EpochEvent& e : log.epochs) {
            QVERIFY(e.validation.detection.has_value());
            const DetectionReport& d = *e.validation.detection;
            QCOMPARE(d.images, int64_t{51});
            QVERIFY(d.instances > 0 && !d.classes.empty());
            QVERIFY(d.map50 >= 0 && d.map50 <= 1 && d.map5095 <= d.map50);
            QCOMPARE(e.valAcc, d.map5095);
            QCOMPARE(e.valLoss, d.boxLoss + d.clsLoss + d.dflLoss);
            QVERIFY(d.boxLoss > 0 && d.clsLoss > 0 && d.dflLoss > 0);
            QCOMPARE(e.validation.classes, 0); // the classifier's matrix: none
            // The detection matrix: every box of the split is found or missed exactly once.
            const std::size_t n = d.classNames.size() + 1;
            QCOMPARE(d.classNames,
                     (std::vector<std::string>{"circle", "square", "triangle", "star", "cross"}));
            QCOMPARE(d.confusion.size(), n * n);
            int64_t trueBoxes = 0;
            for (std::size_t t = 0; t + 1 < n; ++t)
                for (std::size_t p = 0; p < n; ++p)
                    trueBoxes += d.confusion[t * n + p];
            QCOMPARE(trueBoxes, d.instances);
            for (const DetectionClassResult& c : d.classes) {
                QCOMPARE(c.precision50.size(), std::size_t{101});
                QVERIFY(std::is_sorted(c.precision50.rbegin(), c.precision50.rend()));
            }
        }
        // Each logged step carries the loss's three terms, which add up to it.
        for (const StepEvent& s : log.steps) {
            QCOMPARE(s.lossTerms.size(), std::size_t{3});
            QCOMPARE(s.lossTerms[0].name, std::string("box"));
            const double sum = s.lossTerms[0].value + s.lossTerms[1].value + s.lossTerms[2].value;
            QVERIFY2(std::abs(sum - s.loss) <= 1e-5 * s.loss,
                     qPrintable(QString("%1 vs %2").arg(sum).arg(s.loss)));
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

    // The run's other knobs train a detector too: mixed precision (16-mixed's GradScaler
    // scaling the host-computed gradient), accumulation, pinned batches.
    void knobsKeepWorking_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::newRow("bf16-mixed") << "precision"
                                    << "bf16-mixed";
        QTest::newRow("16-mixed") << "precision"
                                  << "16-mixed";
        QTest::newRow("accumulation") << "accumulate_grad_batches"
                                      << "2";
        QTest::newRow("pinned") << "pin_memory"
                                << "true";
    }
    void knobsKeepWorking() {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QTemporaryDir dir;
        RunConfig c = detectionConfig(dir.path());
        c.set("max_epochs", "1");
        c.set(key.toStdString(), value.toStdString());
        test::RunLog log;
        QCOMPARE(status(Trainer(c, log).run().status), QString("completed"));
        QVERIFY(!log.losses().empty());
        for (double l : log.losses())
            QVERIFY(std::isfinite(l) && l > 0);
        QVERIFY(log.epochs.at(0).validation.detection.has_value());
        QVERIFY(std::isfinite(log.epochs.at(0).valLoss));
    }

    // optimizer=sgd trains with Ultralytics' SGD recipe, its warm-up of the biases' rate and of
    // the momentum included (the run is inside its 10 warm-up steps throughout).
    void ultralyticsSgdTrains() {
        QTemporaryDir dir;
        RunConfig c = detectionConfig(dir.path());
        c.set("max_epochs", "1");
        c.set("optimizer", "sgd");
        c.set("lr", "0.01");
        c.set("warmup_steps", "10");
        test::RunLog log;
        QCOMPARE(status(Trainer(c, log).run().status), QString("completed"));
        const nlohmann::json& config = log.starts.at(0).config;
        QCOMPARE(config.at("warmup_bias_lr").get<double>(), 0.1);
        QCOMPARE(config.at("warmup_momentum").get<double>(), 0.8);
        QCOMPARE(config.at("momentum").get<double>(), 0.937);
        QVERIFY(!log.losses().empty());
        for (double l : log.losses())
            QVERIFY(std::isfinite(l) && l > 0);
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
        d.classes.push_back(
            {"star", 11, 0.5, 0.25, 0.75, 0.625, std::vector<double>(101, 0.123456)});
        d.classNames = {"star", "moon"};
        d.confusion = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        r.detection = d;
        const ValidationReport back = validationReportFromText(validationReportToText(r));
        QVERIFY(back.detection.has_value());
        QCOMPARE(back.detection->map5095, 0.25);
        QCOMPARE(back.detection->dflLoss, 3.5);
        QCOMPARE(back.detection->instances, int64_t{11});
        QCOMPARE(back.detection->classes.at(0).name, std::string("star"));
        QCOMPARE(back.detection->classes.at(0).recall, 0.625);
        // The curve is kept to four decimals: what a chart shows.
        QCOMPARE(back.detection->classes.at(0).precision50, std::vector<double>(101, 0.1235));
        QCOMPARE(back.detection->classNames, d.classNames);
        QCOMPARE(back.detection->confusion, d.confusion);
        QCOMPARE(back.classes, 0);
        // Reports stored before the curves and the matrix read without them.
        nlohmann::json old = nlohmann::json::parse(validationReportToText(r));
        old["detection"].erase("names");
        old["detection"].erase("confusion");
        old["detection"]["classes"][0].erase("pr50");
        const ValidationReport older = validationReportFromText(old.dump());
        QVERIFY(older.detection && older.detection->confusion.empty());
        QVERIFY(older.detection->classes.at(0).precision50.empty());
        QCOMPARE(older.detection->map50, 0.5);
        // A step's loss terms, as step_metrics keeps them.
        const std::vector<LossTerm> terms{{"box", 1.25}, {"cls", 0.5}, {"dfl", 2.0}};
        const std::vector<LossTerm> termsBack = lossTermsFromText(lossTermsToText(terms));
        QCOMPARE(termsBack.size(), std::size_t{3});
        QCOMPARE(termsBack[2].name, std::string("dfl"));
        QCOMPARE(termsBack[2].value, 2.0);
        QVERIFY(lossTermsToText({}).empty());
        QVERIFY(lossTermsFromText("not json").empty());
    }

    // evaluate measures the checkpoint as the last epoch's validation did, and its two COCO
    // files give COCO's own algorithm (tests/torch/cocoeval_reference.py) the same mAP.
    void evaluateReproducesValidationAndCoco() {
        const DetectorEvaluation e = evaluateDetector(m_finished.checkpoint, 16, 2);
        const DetectionReport& last = *m_log.epochs.back().validation.detection;
        QCOMPARE(e.report.map50, last.map50);
        QCOMPARE(e.report.map5095, last.map5095);
        QCOMPARE(e.report.images, int64_t{51});
        QCOMPARE(e.imageNames.size(), std::size_t{51});
        QVERIFY(e.report.map50 > 0); // a measure worth reproducing
        QVERIFY(!e.pass.detections.empty());
        const nlohmann::json gt = cocoGroundTruth(e);
        QCOMPARE(gt.at("images").size(), std::size_t{51});
        QCOMPARE(gt.at("categories").at(0).at("id").get<int>(), 1);
        if (const QString why = test::torchUnavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QTemporaryDir dir;
        const QString gtPath = dir.path() + "/gt.json", resultsPath = dir.path() + "/dt.json";
        std::ofstream(gtPath.toStdString()) << gt.dump();
        std::ofstream(resultsPath.toStdString()) << cocoResults(e).dump();
        const QJsonObject coco =
            test::runTorchScript("cocoeval_reference.py", {gtPath, resultsPath});
        qInfo("ours mAP50 %.6f mAP50-95 %.6f; COCO's algorithm %.6f %.6f", e.report.map50,
              e.report.map5095, coco["map50"].toDouble(), coco["map5095"].toDouble());
        QVERIFY(std::abs(coco["map50"].toDouble() - e.report.map50) < 1e-9);
        QVERIFY(std::abs(coco["map5095"].toDouble() - e.report.map5095) < 1e-9);
    }

    // predict's boxes are in the image's own pixels: the same image at twice the size (each
    // pixel four times, which the letterbox's bilinear halving turns back into the same network
    // input) gives the same boxes, twice as large; a higher confidence keeps a subset.
    void predictMapsBoxesToTheImage() {
        Detector detector(m_finished.checkpoint);
        QCOMPARE(detector.imageSize(), 96);
        QCOMPARE(detector.classNames().size(), std::size_t{5});
        const ShapesDetectSource scenes(4, 96, 99, "t");
        std::vector<RgbImage> small, large;
        for (int64_t i = 0; i < scenes.size(); ++i) {
            const RgbImage img = scenes.load(i).image;
            RgbImage twice;
            twice.width = twice.height = 192;
            for (int y = 0; y < 192; ++y)
                for (int x = 0; x < 192; ++x)
                    for (int c = 0; c < 3; ++c)
                        twice.pixels.push_back(img.pixels[((y / 2) * 96 + x / 2) * 3 + c]);
            small.push_back(img);
            large.push_back(std::move(twice));
        }
        const auto loose = predictionNms(0.001f, 0.7f);
        const auto a = detector.detect(small, loose), b = detector.detect(large, loose);
        QCOMPARE(a.size(), std::size_t{4});
        std::size_t boxes = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(a[i].size(), b[i].size());
            for (std::size_t k = 0; k < a[i].size(); ++k) {
                QCOMPARE(a[i][k].classIndex, b[i][k].classIndex);
                QCOMPARE(a[i][k].confidence, b[i][k].confidence);
                QVERIFY(std::abs(2 * a[i][k].x1 - b[i][k].x1) < 1e-3f &&
                        std::abs(2 * a[i][k].y2 - b[i][k].y2) < 1e-3f);
                QVERIFY(a[i][k].x1 >= 0 && a[i][k].x2 <= 96 && a[i][k].x1 <= a[i][k].x2);
            }
            boxes += a[i].size();
        }
        QVERIFY(boxes > 0);
        const auto strict = detector.detect(small, predictionNms(0.25f, 0.7f));
        for (std::size_t i = 0; i < a.size(); ++i)
            QVERIFY(strict[i].size() <= a[i].size());
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

private:
    QTemporaryDir m_dir;
    test::RunLog m_log;
    RunFinishedEvent m_finished;
};

QTEST_GUILESS_MAIN(TestDetection)
#include "tst_detection.moc"

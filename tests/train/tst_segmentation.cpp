// A U-Net trained end to end on shapes-seg at 32 px: it completes with the per-pixel loss,
// learns (the loss falls, mIoU rises), validates as torchvision's reference scores it (a
// confusion matrix over the counted pixels, pixel accuracy as valAcc, mean IoU as the fitness),
// gives the same losses for any number of loader workers, resumes on the same trajectory, and
// refuses a classifier on masks, a U-Net on classes and an output of another size. The report
// survives the run store's JSON, classes without pixels included.
#include "core/errors.h"
#include "store/validationreportjson.h"
#include "support/runlog.h"
#include "train/detectionvalidation.h"
#include "train/predictor.h"
#include "train/trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace tb;

namespace {

RunConfig segmentationConfig(const QString& dir) {
    RunConfig c;
    c.set("dataset", "shapes-seg");        // implies unet at 32 px, AdamW at 2e-3
    c.set("data.synthetic_samples", "64"); // 6 validation images
    c.set("data.augment", "true");
    c.set("model.width", "8");
    c.set("model.depth", "2");
    c.set("batch_size", "8");
    c.set("max_epochs", "2");
    c.set("log_every_n_steps", "1");
    c.set("threads", "2");
    c.set("num_workers", "2");
    c.set("device", "cpu");
    c.set("checkpoint_dir", dir.toStdString());
    return c;
}

constexpr int kEpochs = 6, kStepsPerEpoch = 100, kValidationImages = 160;

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

class TestSegmentation : public QObject {
    Q_OBJECT
private slots:
    // The zoo's U-Net (16 wide, 3 deep) trained for the suite, the learning test on a CI budget:
    // 6 epochs of 100 steps on 1,600 scenes, about 17 s on two cores (a minute on 2,000 scenes
    // takes it past 0.8 mIoU: README).
    void initTestCase() {
        RunConfig c = segmentationConfig(m_dir.path());
        c.set("data.synthetic_samples", "1600"); // 160 validation images
        c.set("data.augment", "false");
        c.set("model.width", "16");
        c.set("model.depth", "3");
        c.set("batch_size", "16");
        c.set("max_epochs", std::to_string(kEpochs));
        m_finished = Trainer(c, m_log).run();
        QCOMPARE(status(m_finished.status), QString("completed"));
        QVERIFY(!m_finished.checkpoint.empty());
    }

    void trainsAndValidates() {
        QCOMPARE(m_log.starts.at(0).config.at("model").get<std::string>(), std::string("unet"));
        const std::vector<double> losses = m_log.losses();
        QCOMPARE(losses.size(), std::size_t{kEpochs * kStepsPerEpoch});
        for (double l : losses)
            QVERIFY(std::isfinite(l) && l > 0);
        const std::size_t n = losses.size();
        QVERIFY2(mean(losses, n - 50, n) < 0.3 * mean(losses, 0, 50),
                 qPrintable(QString("first 50 steps %1, last 50 %2")
                                .arg(mean(losses, 0, 50))
                                .arg(mean(losses, n - 50, n))));
        QCOMPARE(m_log.epochs.size(), std::size_t{kEpochs});
        for (const EpochEvent& e : m_log.epochs) {
            QVERIFY(e.validation.segmentation.has_value());
            const SegmentationReport& r = *e.validation.segmentation;
            QCOMPARE(r.classNames, (std::vector<std::string>{"background", "circle", "square",
                                                             "triangle", "star", "cross"}));
            QCOMPARE(r.images, int64_t{kValidationImages});
            QCOMPARE(r.confusion.size(), std::size_t{36});
            int64_t total = 0, right = 0;
            for (int t = 0; t < 6; ++t)
                for (int p = 0; p < 6; ++p) {
                    total += r.confusion[static_cast<std::size_t>(t * 6 + p)];
                    right += t == p ? r.confusion[static_cast<std::size_t>(t * 6 + p)] : 0;
                }
            // Every pixel of the validation images counted once, but the outlines (ignored).
            QCOMPARE(total, r.pixels);
            QVERIFY(r.pixels < kValidationImages * 32 * 32 &&
                    r.pixels > kValidationImages * 32 * 32 * 8 / 10);
            QCOMPARE(e.valAcc, static_cast<double>(right) / static_cast<double>(total));
            QCOMPARE(r.pixelAccuracy, e.valAcc);
            // The mean over the classes with an IoU: torchvision's formula from the matrix.
            double sum = 0;
            int present = 0;
            for (int c = 0; c < 6; ++c) {
                int64_t row = 0, column = 0;
                for (int k = 0; k < 6; ++k) {
                    row += r.confusion[static_cast<std::size_t>(c * 6 + k)];
                    column += r.confusion[static_cast<std::size_t>(k * 6 + c)];
                }
                const int64_t tp = r.confusion[static_cast<std::size_t>(c * 6 + c)];
                if (row + column - tp == 0) {
                    QVERIFY(std::isnan(r.iou[static_cast<std::size_t>(c)]));
                    continue;
                }
                const double iou = static_cast<double>(tp) / static_cast<double>(row + column - tp);
                QCOMPARE(r.iou[static_cast<std::size_t>(c)], iou);
                sum += iou;
                ++present;
            }
            QVERIFY(std::fabs(r.meanIoU - sum / present) < 1e-12);
            QCOMPARE(fitnessOf(e), r.meanIoU);
            QVERIFY(std::isfinite(e.valLoss) && e.valLoss > 0);
        }
        // It learns the shapes, not only the background (which alone scores 1/6 of the mean).
        const double first = m_log.epochs.front().validation.segmentation->meanIoU;
        const double last = m_log.epochs.back().validation.segmentation->meanIoU;
        qInfo("mIoU %.3f after one epoch, %.3f after %d", first, last, kEpochs);
        QVERIFY2(
            last > first + 0.1 && last > 0.35,
            qPrintable(
                QString("mIoU %1 after one epoch, %2 after %3").arg(first).arg(last).arg(kEpochs)));
    }

    // predict lists classes: a mask model is refused by name, not read as a classifier.
    void predictRefusesMasks() {
        QString error;
        try {
            Predictor predictor(m_finished.checkpoint);
        } catch (const ConfigError& e) {
            QCOMPARE(e.field(), std::string("model"));
            error = e.what();
        }
        QVERIFY2(error.contains("is a segmentation model"), qPrintable(error));
    }

    void sameLossesForAnyWorkerCount() {
        QTemporaryDir d1, d2;
        RunConfig a = segmentationConfig(d1.path()), b = segmentationConfig(d2.path());
        b.set("num_workers", "0");
        test::RunLog la, lb;
        QCOMPARE(status(Trainer(a, la).run().status), QString("completed"));
        QCOMPARE(status(Trainer(b, lb).run().status), QString("completed"));
        QCOMPARE(la.losses(), lb.losses());
        QCOMPARE(la.valLosses(), lb.valLosses());
        QCOMPARE(la.epochs.back().validation.segmentation->confusion,
                 lb.epochs.back().validation.segmentation->confusion);
    }

    // Stopped after its first epoch and resumed: the same losses as straight through.
    void resumeContinuesTheTrajectory() {
        QTemporaryDir full, part;
        RunConfig whole = segmentationConfig(full.path());
        whole.set("lr_schedule", "constant");
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
        QCOMPARE(two.epochs.back().validation.segmentation->meanIoU,
                 straight.epochs.back().validation.segmentation->meanIoU);
    }

    void tasksMustMatch_data() {
        QTest::addColumn<QString>("dataset");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("error");
        QTest::newRow("classifier on masks")
            << "shapes-seg"
            << "fmnist-cnn"
            << "shapes-seg is a segmentation set (a class for every pixel)";
        QTest::newRow("segmenter on classes") << "shapes"
                                              << "unet"
                                              << "unet is a segmentation model";
        QTest::newRow("half-size scores") << "shapes-seg"
                                          << "half.json"
                                          << "its output must have its input's size";
    }
    void tasksMustMatch() {
        QFETCH(QString, dataset);
        QFETCH(QString, model);
        QFETCH(QString, error);
        QTemporaryDir dir;
        RunConfig c = segmentationConfig(dir.path());
        c.set("dataset", dataset.toStdString());
        if (model.endsWith(".json")) {
            // Scores per pixel, but at half the image's size.
            const QString spec = dir.filePath(model);
            std::ofstream(spec.toStdString())
                << R"({"name": "half", "input": [3, 32, 32], "classes": "CLASSES", "layers": [)"
                << R"({"type": "conv2d", "out_channels": "CLASSES", "kernel": 2, "stride": 2}]})";
            model = spec;
        }
        c.set("model", model.toStdString());
        if (dataset == "shapes")
            c.set("data.synthetic_samples", "20");
        test::RunLog log;
        const RunFinishedEvent r = Trainer(c, log).run();
        QCOMPARE(status(r.status), QString("failed"));
        QVERIFY2(QString::fromStdString(r.error).contains(error), r.error.c_str());
    }

    // A segmentation set brings its model, its recipe and a size its three halvings fit.
    void datasetImpliesTheUnet() {
        RunConfig c;
        c.set("dataset", "shapes-seg");
        const nlohmann::json j = c.toJson();
        QCOMPARE(j.at("model").get<std::string>(), std::string("unet"));
        QCOMPARE(j.at("data.image_size").get<int>(), 32);
        QCOMPARE(j.at("model.depth").get<int>(), 3);
        QCOMPARE(j.at("model.width").get<int>(), 16);
        QCOMPARE(j.at("optimizer").get<std::string>(), std::string("adamw"));
        QCOMPARE(j.at("lr").get<double>(), 0.002);
        QCOMPARE(j.at("batch_size").get<int>(), 16);
        c.set("dataset", "voc");
        QCOMPARE(c.toJson().at("data.image_size").get<int>(), 128);
    }

    void reportSurvivesTheStore() {
        ValidationReport r;
        SegmentationReport s;
        s.meanIoU = 0.625;
        s.pixelAccuracy = 0.875;
        s.classNames = {"background", "road", "car"};
        s.iou = {0.75, 0.5, std::nan("")};
        s.classAccuracy = {0.875, 0.625, std::nan("")};
        s.images = 3;
        s.pixels = 45;
        s.confusion = {20, 2, 0, 3, 20, 0, 0, 0, 0};
        r.segmentation = s;
        const ValidationReport back = validationReportFromText(validationReportToText(r));
        QVERIFY(back.segmentation.has_value());
        QVERIFY(!back.detection.has_value());
        QCOMPARE(back.segmentation->meanIoU, 0.625);
        QCOMPARE(back.segmentation->pixelAccuracy, 0.875);
        QCOMPARE(back.segmentation->classNames, s.classNames);
        QCOMPARE(back.segmentation->iou[1], 0.5);
        QVERIFY(std::isnan(back.segmentation->iou[2])); // null in the JSON
        QVERIFY(std::isnan(back.segmentation->classAccuracy[2]));
        QCOMPARE(back.segmentation->pixels, int64_t{45});
        QCOMPARE(back.segmentation->confusion, s.confusion);
    }

private:
    QTemporaryDir m_dir;
    test::RunLog m_log;
    RunFinishedEvent m_finished;
};

QTEST_GUILESS_MAIN(TestSegmentation)
#include "tst_segmentation.moc"

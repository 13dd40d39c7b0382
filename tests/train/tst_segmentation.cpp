// A U-Net trained end to end on shapes-seg at 32 px: it completes with the per-pixel loss,
// learns (the loss falls, mIoU rises), validates as torchvision's reference scores it (a
// confusion matrix over the counted pixels, pixel accuracy as valAcc, mean IoU as the fitness),
// gives the same losses for any number of loader workers, resumes on the same trajectory, and
// refuses a classifier on masks, a U-Net on classes and an output of another size. The report
// survives the run store's JSON, classes without pixels included.
#include "backend/cpu/cpubackend.h"
#include "backend/devices.h"
#include "core/errors.h"
#include "data/shapesseg.h"
#include "io/safetensors.h"
#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "store/validationreportjson.h"
#include "support/layouttensors.h"
#include "support/runlog.h"
#include "support/testdata.h"
#include "train/detectionvalidation.h"
#include "train/predictor.h"
#include "train/segmenter.h"
#include "train/segmenterevaluation.h"
#include "train/trainedmodel.h"
#include "train/trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <set>

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
        // Not the default: evaluate must compute as the run did to reproduce its validation.
        c.set("conv_algorithm", "direct");
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
            // The worst images kept, worst first, each once; a whole split's worst is below
            // its mean.
            QCOMPARE(r.worstImages.size(), SegmentationReport::kKeptWorstImages);
            std::set<int64_t> seen;
            for (std::size_t i = 0; i < r.worstImages.size(); ++i) {
                const ImageIoU& image = r.worstImages[i];
                QVERIFY(image.index >= 0 && image.index < kValidationImages);
                QVERIFY(seen.insert(image.index).second);
                QVERIFY(i == 0 || image.meanIoU >= r.worstImages[i - 1].meanIoU);
            }
            QVERIFY(r.worstImages.front().meanIoU < r.meanIoU);
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

    // evaluate measures the checkpoint as the last epoch's validation did: the same matrix over
    // the same pixels, the same worst images, the same loss, with the run's convolution
    // algorithm.
    void evaluateReproducesValidation() {
        // Its convolutions computed as the run set them (direct, not the default Winograd).
        {
            TrainedModel model(m_finished.checkpoint);
            model.graph().forward(test::randomTensor({2, 3, 32, 32}, 5), false);
            const auto& cpu = dynamic_cast<const CpuBackend&>(model.backend());
            QVERIFY(cpu.convolutionAlgorithms().shapes > 0);
            QCOMPARE(cpu.convolutionAlgorithms().winograd, 0);
        }
        const SegmenterEvaluation e = evaluateSegmenter(m_finished.checkpoint, 16, 2);
        const EpochEvent& last = m_log.epochs.back();
        const SegmentationReport& r = *last.validation.segmentation;
        QCOMPARE(e.imageSize, 32);
        QCOMPARE(e.report.images, int64_t{kValidationImages});
        QCOMPARE(e.report.confusion, r.confusion);
        QCOMPARE(e.report.meanIoU, r.meanIoU);
        QCOMPARE(e.report.worstImages.size(), r.worstImages.size());
        QCOMPARE(e.report.worstImages.front().index, r.worstImages.front().index);
        QVERIFY(std::fabs(e.loss - last.valLoss) <= 1e-6 * last.valLoss);
    }

    // predict's masks are the image's size and the model's answer: at the input size they agree
    // with the truth about as often as validation's pixel accuracy says; the same scene at
    // twice the size (each pixel four times, which the resize's footprint averaging turns back
    // into the same input) gives the same mask, twice as large, but where the bilinear scores
    // cross between pixel centres.
    void predictedMasksFollowTheImage() {
        Segmenter segmenter(m_finished.checkpoint);
        QCOMPARE(segmenter.inputHeight(), 32);
        const ShapesSegSource scenes(16, 32, 77, "t");
        std::vector<RgbImage> small, large;
        std::vector<ClassMask> truth;
        for (int64_t i = 0; i < scenes.size(); ++i) {
            SegmentedImage scene;
            scenes.load(i, scene);
            small.push_back(scene.image);
            truth.push_back(scene.mask);
            RgbImage twice{64, 64, std::vector<uint8_t>(64 * 64 * 3)};
            for (int y = 0; y < 64; ++y)
                for (int x = 0; x < 64; ++x)
                    for (int c = 0; c < 3; ++c)
                        twice.pixels[(y * 64 + x) * 3 + c] =
                            scene.image.pixels[((y / 2) * 32 + x / 2) * 3 + c];
            large.push_back(std::move(twice));
        }
        const auto atInput = segmenter.segment(small), doubled = segmenter.segment(large);
        int64_t right = 0, counted = 0, same = 0;
        for (std::size_t i = 0; i < atInput.size(); ++i) {
            QCOMPARE(atInput[i].mask.width, 32);
            QCOMPARE(doubled[i].mask.height, 64);
            double shares = 0;
            for (double share : atInput[i].classShare)
                shares += share;
            QVERIFY(std::fabs(shares - 1.0) < 1e-9);
            for (std::size_t p = 0; p < 32 * 32; ++p) {
                const uint8_t t = truth[i].classes[p];
                counted += t != kMaskIgnore;
                right += t != kMaskIgnore && t == atInput[i].mask.classes[p];
            }
            for (int y = 0; y < 64; ++y)
                for (int x = 0; x < 64; ++x)
                    same += doubled[i].mask.classes[static_cast<std::size_t>(y * 64 + x)] ==
                            atInput[i].mask.classes[static_cast<std::size_t>((y / 2) * 32 + x / 2)];
        }
        const double accuracy = static_cast<double>(right) / static_cast<double>(counted);
        const double agreement = static_cast<double>(same) / (16.0 * 64 * 64);
        const double validation = m_log.epochs.back().valAcc;
        qInfo("pixel accuracy %.3f (validation's %.3f); doubled image agrees on %.3f", accuracy,
              validation, agreement);
        QVERIFY(std::fabs(accuracy - validation) < 0.1);
        QVERIFY(agreement > 0.9);
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

    // torchvision's FCN with its reference recipe (SGD at 0.02, weight decay 1e-4, the poly
    // schedule, 4 images a batch, the auxiliary head) trains through the same loop: both heads
    // and the backbone learn; with the backbone frozen, the heads alone.
    void torchvisionModelTrainsWithItsRecipe() {
        // The recipe in either order: after the set, fcn_resnet50 replaces what it had implied
        // for the U-Net, but not what was set on purpose.
        RunConfig datasetFirst;
        datasetFirst.set("dataset", "shapes-seg");
        datasetFirst.set("weight_decay", "0.001");
        datasetFirst.set("model", "fcn_resnet50");
        QCOMPARE(datasetFirst.toJson().at("optimizer").get<std::string>(), std::string("sgd"));
        QCOMPARE(datasetFirst.toJson().at("lr").get<double>(), 0.02);
        QCOMPARE(datasetFirst.toJson().at("batch_size").get<int>(), 4);
        QCOMPARE(datasetFirst.toJson().at("weight_decay").get<double>(), 0.001);
        QTemporaryDir dir;
        RunConfig c;
        c.set("model", "fcn_resnet50");
        c.set("dataset", "shapes-seg");
        const nlohmann::json j = c.toJson();
        QCOMPARE(j.at("optimizer").get<std::string>(), std::string("sgd"));
        QCOMPARE(j.at("lr").get<double>(), 0.02);
        QCOMPARE(j.at("weight_decay").get<double>(), 0.0001);
        QCOMPARE(j.at("lr_schedule").get<std::string>(), std::string("poly"));
        QCOMPARE(j.at("batch_size").get<int>(), 4);
        QVERIFY(j.at("model.aux_loss").get<bool>());
        c.set("data.synthetic_samples", "20");
        c.set("max_epochs", "1");
        c.set("max_steps", "3");
        c.set("log_every_n_steps", "1");
        c.set("threads", "2");
        c.set("device", "cpu");
        c.set("checkpoint_dir", dir.path().toStdString());
        test::RunLog log;
        const RunFinishedEvent f = Trainer(c, log).run();
        QCOMPARE(status(f.status), QString("completed"));
        // The training loss is the scores' (comparable with the validation loss); the auxiliary
        // head's is a term of its own, each about ln 6 from scratch.
        QCOMPARE(log.steps.size(), std::size_t{3});
        const StepEvent& first = log.steps.front();
        QVERIFY2(first.loss > 0.7 * std::log(6.0) && first.loss < 2.0 * std::log(6.0),
                 qPrintable(QString::number(first.loss)));
        QCOMPARE(first.lossTerms.size(), std::size_t{1});
        QCOMPARE(first.lossTerms[0].name, std::string("aux"));
        QVERIFY2(first.lossTerms[0].value > 0.7 * std::log(6.0) &&
                     first.lossTerms[0].value < 2.0 * std::log(6.0),
                 qPrintable(QString::number(first.lossTerms[0].value)));

        auto backend = createCpuBackend(1);
        Graph initial(modelSpec("fcn_resnet50", {3, 32, 32}, 6, {{"aux_loss", true}}), *backend,
                      DType::F32, c.seed);
        const auto before = test::hostStateOf(*backend, initial);
        const auto after = readSafetensors(f.checkpoint).tensors;
        for (const char* name :
             {"backbone.conv1.weight", "backbone.layer4.2.conv2.weight", "classifier.4.weight",
              "aux_classifier.0.weight", "aux_classifier.4.bias"})
            QVERIFY2(!test::sameValues(after.at(name), before.at(name)), name);

        // finetune.freeze=backbone: the backbone keeps its weights, both heads still learn.
        QTemporaryDir frozenDir;
        c.set("finetune.freeze", "backbone");
        c.set("checkpoint_dir", frozenDir.path().toStdString());
        test::RunLog frozenLog;
        const RunFinishedEvent frozen = Trainer(c, frozenLog).run();
        QVERIFY2(frozen.status == RunStatus::Completed, frozen.error.c_str());
        const auto tuned = readSafetensors(frozen.checkpoint).tensors;
        QVERIFY(test::sameValues(tuned.at("backbone.layer4.2.conv2.weight"),
                                 before.at("backbone.layer4.2.conv2.weight")));
        for (const char* name : {"classifier.0.weight", "aux_classifier.0.weight"})
            QVERIFY2(!test::sameValues(tuned.at(name), before.at(name)), name);
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
        s.worstImages = {{2, 0.25}, {0, 0.5}};
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
        QCOMPARE(back.segmentation->worstImages.size(), std::size_t{2});
        QCOMPARE(back.segmentation->worstImages[0].index, int64_t{2});
        QCOMPARE(back.segmentation->worstImages[1].meanIoU, 0.5);
    }

private:
    QTemporaryDir m_dir;
    test::RunLog m_log;
    RunFinishedEvent m_finished;
};

QTEST_GUILESS_MAIN(TestSegmentation)
#include "tst_segmentation.moc"

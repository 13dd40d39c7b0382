// What validation reports beside its loss: the confusion matrix and the misclassified samples,
// checked on hand-made logits and on a real run against counts taken from the dataset; and the
// Predictor, which must answer for a sample as the run's last validation did.
#include "core/errors.h"
#include "data/datasets.h"
#include "support/runconfigs.h"
#include "support/runlog.h"
#include "train/predictor.h"
#include "train/trainer.h"
#include "train/validationtally.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace tb;

class TestValidation : public QObject {
    Q_OBJECT
private slots:
    void tallyCountsRowsByLabelAndKeepsTheMisses() {
        ValidationTally tally(3, {"a", "b", "c"});
        // Four samples of two features each; rows of logits, labels 0, 1, 2, 2.
        Tensor inputs = Tensor::host({4, 2}, DType::F32);
        for (int i = 0; i < 8; ++i)
            inputs.data<float>()[i] = static_cast<float>(i);
        const float logits[] = {3, 1, 0, /**/ 0, 2, 1, /**/ 0, 5, 1, /**/ 0, 0, 4};
        const int32_t labels[] = {0, 1, 2, 2};
        tally.add(logits, labels, 4, inputs, 100);
        const ValidationReport& r = tally.report();
        QCOMPARE(r.classes, 3);
        QCOMPARE(r.count(0, 0), 1);
        QCOMPARE(r.count(1, 1), 1);
        QCOMPARE(r.count(2, 1), 1); // the third sample: label 2, predicted 1
        QCOMPARE(r.count(2, 2), 1);
        int64_t total = 0;
        for (int64_t v : r.confusion)
            total += v;
        QCOMPARE(total, 4);
        QCOMPARE(r.misclassified.size(), std::size_t{1});
        const MisclassifiedSample& miss = r.misclassified[0];
        QCOMPARE(miss.index, 102);
        QCOMPARE(miss.label, 2);
        QCOMPARE(miss.predicted, 1);
        QCOMPARE(miss.shape, std::vector<int64_t>{2});
        QCOMPARE(miss.pixels, (std::vector<float>{4, 5}));
        const double expected = 1.0 / (1.0 + std::exp(-5.0) + std::exp(-4.0));
        QVERIFY(std::abs(miss.confidence - expected) < 1e-6);
    }

    void tallyKeepsOnlyTheFirstMisses() {
        ValidationTally tally(2, {"a", "b"});
        const int n = 100;
        Tensor inputs = Tensor::host({n, 1}, DType::F32);
        std::vector<float> logits(2 * n);
        std::vector<int32_t> labels(n, 0);
        for (int i = 0; i < n; ++i)
            logits[2 * i + 1] = 1.0f; // every one predicted 1
        tally.add(logits.data(), labels.data(), n, inputs, 0);
        QCOMPARE(tally.report().count(0, 1), n);
        QCOMPARE(tally.report().misclassified.size(), ValidationReport::kKeptMisclassified);
        QCOMPARE(tally.report().misclassified.back().index,
                 int64_t(ValidationReport::kKeptMisclassified) - 1);
    }

    // A real run: each row sums to the split's count of that label (counted here from the
    // dataset), the diagonal to the accuracy, and every kept miss is one.
    void realRunMatchesTheDatasetsCounts() {
        QTemporaryDir dir;
        RunConfig config = test::shapesRunConfig(dir.path().toStdString(), "mlp");
        test::RunLog log;
        const RunFinishedEvent finished = Trainer(config, log).run();
        QVERIFY2(finished.status == RunStatus::Completed, finished.error.c_str());
        QCOMPARE(log.epochs.size(), std::size_t{2});

        const DatasetSplits data = openDatasets(config.data, config.seed);
        const Dataset& val = *data.validation;
        const int classes = val.numClasses();
        std::vector<int64_t> perLabel(static_cast<std::size_t>(classes), 0);
        for (int64_t i = 0; i < val.size(); ++i)
            ++perLabel[static_cast<std::size_t>(val.label(i))];

        for (const EpochEvent& epoch : log.epochs) {
            const ValidationReport& r = epoch.validation;
            QCOMPARE(r.classes, classes);
            QCOMPARE(r.classNames, val.classNames());
            int64_t correct = 0;
            for (int t = 0; t < classes; ++t) {
                int64_t row = 0;
                for (int p = 0; p < classes; ++p)
                    row += r.count(t, p);
                QCOMPARE(row, perLabel[static_cast<std::size_t>(t)]);
                correct += r.count(t, t);
            }
            QVERIFY(std::abs(double(correct) / double(val.size()) - epoch.valAcc) < 1e-6);
            std::vector<float> sample(static_cast<std::size_t>(val.sampleShape().numel()));
            for (const MisclassifiedSample& s : r.misclassified) {
                QVERIFY(s.label != s.predicted);
                QCOMPARE(val.get(s.index, sample.data(), 0), s.label);
                QCOMPARE(s.pixels, sample);
                QCOMPARE(s.shape, val.sampleShape().dims());
            }
        }
        QVERIFY2(!log.epochs.back().validation.misclassified.empty(),
                 "two epochs of mlp on shapes should still miss some");
        predictorAnswersAsTheLastValidation(finished.checkpoint, config,
                                            log.epochs.back().validation);
    }

    void predictorRefusesWhatIsNotACheckpoint() {
        QTemporaryDir dir;
        const QString path = dir.filePath("notes.safetensors");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not a checkpoint");
        f.close();
        try {
            Predictor p(path.toStdString());
            QFAIL("a text file was accepted as a checkpoint");
        } catch (const std::exception& e) {
            QVERIFY2(QString(e.what()).contains(path), e.what());
        }
    }

private:
    // The checkpoint written after the last epoch holds the weights that validation used: the
    // predictor, fed the raw sample, must predict the same class with the same probability.
    void predictorAnswersAsTheLastValidation(const std::string& checkpoint, RunConfig config,
                                             const ValidationReport& report) {
        QVERIFY(!checkpoint.empty());
        Predictor predictor(checkpoint);
        QCOMPARE(predictor.sampleShape(), Shape::parse("1x16x16", "shape"));
        config.data.normalize = false; // the raw pixels, as a drawing or an image file gives them
        const DatasetSplits raw = openDatasets(config.data, config.seed);
        std::vector<float> sample(static_cast<std::size_t>(raw.validation->sampleShape().numel()));
        for (const MisclassifiedSample& s : report.misclassified) {
            raw.validation->get(s.index, sample.data(), 0);
            const std::vector<Prediction> top = predictor.predict(sample);
            QCOMPARE(top.size(), static_cast<std::size_t>(std::min(5, report.classes)));
            QCOMPARE(top[0].classIndex, s.predicted);
            QVERIFY2(std::abs(top[0].probability - s.confidence) < 1e-4,
                     qPrintable(QString("%1 vs %2").arg(top[0].probability).arg(s.confidence)));
            for (std::size_t i = 1; i < top.size(); ++i)
                QVERIFY(top[i].probability <= top[i - 1].probability);
        }
        try {
            predictor.predict({1.0f, 2.0f});
            QFAIL("a sample of the wrong size was accepted");
        } catch (const ConfigError& e) {
            QCOMPARE(e.field(), std::string("input"));
        }
    }
};

QTEST_GUILESS_MAIN(TestValidation)
#include "tst_validation.moc"

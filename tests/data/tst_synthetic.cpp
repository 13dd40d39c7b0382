// Synthetic sets: deterministic from the seed, validation drawn with another seed, balanced
// classes, shape images in range, and class-count limits.
#include "core/errors.h"
#include "data/datasets.h"
#include "data/synthetic.h"

#include <QtTest>

using namespace tb;

namespace {

std::vector<float> sample(const Dataset& ds, int64_t i) {
    std::vector<float> out(static_cast<std::size_t>(ds.sampleShape().numel()));
    ds.get(i, out.data(), 0);
    return out;
}

} // namespace

class TestSynthetic : public QObject {
    Q_OBJECT
private slots:
    void deterministicFromSeed_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("classes");
        QTest::addColumn<qint64>("numel");
        QTest::newRow("spirals") << "spirals" << 3 << qint64(2);
        QTest::newRow("blobs") << "blobs" << 4 << qint64(2);
        QTest::newRow("shapes") << "shapes" << 6 << qint64(32 * 32);
    }
    void deterministicFromSeed() {
        QFETCH(QString, name);
        QFETCH(int, classes);
        QFETCH(qint64, numel);
        DataConfig config;
        config.name = name.toStdString();
        config.syntheticSamples = 300;
        config.syntheticClasses = classes;
        config.normalize = false;
        const DatasetSplits a = openDatasets(config, 1);
        const DatasetSplits b = openDatasets(config, 1);
        const DatasetSplits c = openDatasets(config, 2);
        QCOMPARE(a.train->size(), int64_t{300});
        QCOMPARE(a.validation->size(), int64_t{30});
        QCOMPARE(a.train->sampleShape().numel(), int64_t{numel});
        QCOMPARE(a.train->numClasses(), classes);
        for (int64_t i : {0, 7, 299}) {
            QCOMPARE(sample(*a.train, i), sample(*b.train, i));
            QVERIFY(sample(*a.train, i) != sample(*c.train, i));
        }
        QVERIFY(sample(*a.train, 0) != sample(*a.validation, 0));
        std::vector<int> histogram(static_cast<std::size_t>(classes));
        for (int64_t i = 0; i < 300; ++i)
            ++histogram[static_cast<std::size_t>(a.train->label(i))];
        for (int h : histogram)
            QCOMPARE(h, 300 / classes);
    }

    void shapesAreDrawnInRange() {
        ShapesDataset ds(12, 6, 24, 9, "t");
        QCOMPARE(ds.classNames().at(3), std::string("cross"));
        for (int64_t i = 0; i < 12; ++i) {
            const std::vector<float> img = sample(ds, i);
            float lo = 1, hi = 0;
            for (float v : img) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
            QVERIFY(lo >= 0.0f && hi <= 1.0f);
            QVERIFY2(hi - lo > 0.4f, "a shape should stand out of the background");
        }
        // A filled square covers more pixels than a cross of the same size would on average.
        QVERIFY(sample(ds, 1) != sample(ds, 7));
    }

    void normalizedPerFeature() {
        DataConfig config;
        config.name = "blobs";
        const DatasetSplits s = openDatasets(config, 4);
        double sum[2] = {0, 0};
        for (int64_t i = 0; i < s.train->size(); ++i) {
            const std::vector<float> x = sample(*s.train, i);
            sum[0] += x[0];
            sum[1] += x[1];
        }
        QVERIFY(std::abs(sum[0] / double(s.train->size())) < 1e-3);
        QVERIFY(std::abs(sum[1] / double(s.train->size())) < 1e-3);
    }

    void rejectsBadCounts_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("classes");
        QTest::addColumn<qint64>("samples");
        QTest::addColumn<QString>("field");
        QTest::newRow("shapes-7-classes")
            << "shapes" << 7 << qint64(10) << "data.synthetic_classes";
        QTest::newRow("spirals-1-class")
            << "spirals" << 1 << qint64(10) << "data.synthetic_classes";
        QTest::newRow("no-samples") << "blobs" << 3 << qint64(0) << "data.synthetic_samples";
    }
    void rejectsBadCounts() {
        QFETCH(QString, name);
        QFETCH(int, classes);
        QFETCH(qint64, samples);
        QFETCH(QString, field);
        DataConfig config;
        config.name = name.toStdString();
        config.syntheticClasses = classes;
        config.syntheticSamples = samples;
        try {
            openDatasets(config, 1);
            QFAIL("accepted a bad count");
        } catch (const ConfigError& e) {
            QCOMPARE(QString::fromStdString(e.field()), field);
        }
    }
};

QTEST_GUILESS_MAIN(TestSynthetic)
#include "tst_synthetic.moc"

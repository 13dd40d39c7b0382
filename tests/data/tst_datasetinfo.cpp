// Dataset descriptions for the CLI: availability list, sizes and histograms, JSON, sample grids
// and the data.* settings parser.
#include "core/errors.h"
#include "data/datasetinfo.h"
#include "data/datasets.h"
#include "data/imagecodec.h"
#include "idxbytes.h"
#include "support/testdata.h"

#include <nlohmann/json.hpp>

#include <QtTest>

using namespace tb;
using namespace tb::test;

class TestDatasetInfo : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { qputenv("XDG_CACHE_HOME", m_cache.path().toUtf8()); }

    void listsEveryName() {
        const std::vector<DatasetAvailability> list = datasetAvailability();
        QCOMPARE(list.size(), datasetNames().size());
        for (const DatasetAvailability& a : list) {
            if (a.name == "spirals")
                QVERIFY(a.found);
            if (a.name == "csv")
                QCOMPARE(a.note, std::string("needs data.root"));
            if (a.name == "fashion-mnist")
                QCOMPARE(a.location, std::string("/usr/share/datasets/fashion-mnist"));
        }
    }

    void describesIdx() {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        writeFile(root + "/train-images-idx3-ubyte", idxImages(23, 5, 5));
        writeFile(root + "/train-labels-idx1-ubyte", idxLabels(23));
        writeFile(root + "/t10k-images-idx3-ubyte", idxImages(4, 5, 5));
        writeFile(root + "/t10k-labels-idx1-ubyte", idxLabels(4));
        DataConfig config;
        config.root = root;
        const DatasetInfo info = describeDataset(config);
        QCOMPARE(info.trainSize, int64_t{23});
        QCOMPARE(info.validationSize, int64_t{4});
        QCOMPARE(info.classNames.at(1), std::string("Trouser"));
        QCOMPARE(info.trainHistogram.at(0), int64_t{3});
        QCOMPARE(info.trainHistogram.at(9), int64_t{2});
        QCOMPARE(info.validationHistogram.at(3), int64_t{1});
        QCOMPARE(info.stats.mean.size(), std::size_t{1});
        QVERIFY(info.stats.stdDev[0] > 0.0f);
        const nlohmann::json j = datasetInfoToJson(info);
        QCOMPARE(j["train"]["samples"].get<int64_t>(), int64_t{23});
        QCOMPARE(j["classes"][9]["name"].get<std::string>(), std::string("Ankle boot"));
        QCOMPARE(j["sample_shape"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 5, 5}));

        const std::string grid = root + "/grid.png";
        writeSampleGrid(config, grid, 4, 3);
        const RgbImage img = decodeImage(readWholeFile(grid), grid);
        QCOMPARE(img.width, 4 * 7 + 2);
        QCOMPARE(img.height, 3 * 7 + 2);
    }

    void drawsScatterForFeatures() {
        QTemporaryDir dir;
        DataConfig config;
        config.name = "spirals";
        const std::string path = (dir.path() + "/s.png").toStdString();
        writeSampleGrid(config, path);
        const RgbImage img = decodeImage(readWholeFile(path), path);
        QCOMPARE(img.width, 320);
    }

private:
    QTemporaryDir m_cache;
};

QTEST_GUILESS_MAIN(TestDatasetInfo)
#include "tst_datasetinfo.moc"

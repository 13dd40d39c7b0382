// Transforms: per-channel normalisation, random crop with padding + flip driven by the sample
// seed, subsets, seeded permutations and splits, and the cached channel statistics.
#include "core/errors.h"
#include "data/channelstats.h"
#include "data/transforms.h"

#include <QFileInfo>
#include <QtTest>

#include <set>

using namespace tb;

namespace {

// Sample i: a {2, 3, 4} image with value c * 100 + y * 10 + x + i.
class GridDataset : public Dataset {
public:
    int64_t size() const override { return 10; }
    Shape sampleShape() const override { return {2, 3, 4}; }
    int numClasses() const override { return 2; }
    int32_t label(int64_t index) const override { return static_cast<int32_t>(index % 2); }
    int32_t get(int64_t index, float* out, uint64_t) const override {
        for (int c = 0; c < 2; ++c)
            for (int y = 0; y < 3; ++y)
                for (int x = 0; x < 4; ++x)
                    out[c * 12 + y * 4 + x] = float(c * 100 + y * 10 + x + index);
        return label(index);
    }
    std::string description() const override { return "grid"; }
};

} // namespace

class TestTransforms : public QObject {
    Q_OBJECT
private slots:
    void normalizesPerChannel() {
        auto grid = std::make_shared<GridDataset>();
        NormalizeDataset n(grid, {1.0f, 101.0f}, {2.0f, 0.0f});
        std::vector<float> out(24);
        QCOMPARE(n.get(0, out.data(), 0), 0);
        QCOMPARE(out[0], -0.5f);  // (0 - 1) / 2
        QCOMPARE(out[12], -1.0f); // (100 - 101) / 1: a zero std counts as 1
        QVERIFY_THROWS_EXCEPTION(Error, NormalizeDataset(grid, {1.0f}, {1.0f}));
    }

    void cropsAndFlipsBySeed() {
        auto grid = std::make_shared<GridDataset>();
        RandomCropFlipDataset flipOnly(grid, 0, true);
        std::vector<float> out(24), again(24);
        int flipped = 0;
        for (uint64_t seed = 0; seed < 40; ++seed) {
            flipOnly.get(0, out.data(), seed);
            flipOnly.get(0, again.data(), seed);
            QCOMPARE(out, again);
            if (out[0] == 3.0f) {
                ++flipped;
                QCOMPARE(out[3], 0.0f);
                QCOMPARE(out[12 + 4], 113.0f);
            } else {
                QCOMPARE(out[0], 0.0f);
            }
        }
        QVERIFY(flipped > 8 && flipped < 32);
        RandomCropFlipDataset crop(grid, 1, false);
        std::set<float> corners;
        for (uint64_t seed = 0; seed < 60; ++seed) {
            crop.get(0, out.data(), seed);
            corners.insert(out[0]); // 0 (padding) or a shifted pixel
        }
        QVERIFY(corners.count(0.0f) == 1);
        QVERIFY(corners.size() >= 4);
        QVERIFY(corners.count(11.0f) == 1); // shifted by one row and column
    }

    void subsetsAndSplits() {
        const auto [train, val] = splitIndices(100, 0.2, 3);
        QCOMPARE(train.size(), std::size_t{80});
        QCOMPARE(val.size(), std::size_t{20});
        std::set<int64_t> all(train.begin(), train.end());
        all.insert(val.begin(), val.end());
        QCOMPARE(all.size(), std::size_t{100});
        QCOMPARE(splitIndices(100, 0.2, 3).second, val);
        QVERIFY(splitIndices(100, 0.2, 4).second != val);
        QCOMPARE(splitIndices(10, 0.01, 1).second.size(), std::size_t{1});
        QVERIFY_THROWS_EXCEPTION(ConfigError, splitIndices(10, 1.0, 1));
        const std::vector<int64_t> p = seededPermutation(50, 9);
        QCOMPARE(std::set<int64_t>(p.begin(), p.end()).size(), std::size_t{50});
        SubsetDataset sub(std::make_shared<GridDataset>(), {7, 2}, "sub");
        std::vector<float> out(24);
        QCOMPARE(sub.size(), int64_t{2});
        QCOMPARE(sub.get(0, out.data(), 0), 1);
        QCOMPARE(out[0], 7.0f);
    }

    void computesAndCachesStatistics() {
        QTemporaryDir cache;
        qputenv("XDG_CACHE_HOME", cache.path().toUtf8());
        GridDataset grid;
        const ChannelStats st = computeChannelStats(grid);
        QCOMPARE(st.mean.size(), std::size_t{2});
        QCOMPARE(st.mean[0], 16.0f); // mean of y * 10 (10) + x (1.5) + index (4.5)
        const std::string key = statsCacheKey("grid", {}, "v1");
        QCOMPARE(cachedChannelStats(grid, key).mean[1], st.mean[1]);
        QVERIFY(QFile::exists(cache.path() + "/TrainBench/dataset-stats.json"));
        // The cache is read back: a value planted in it wins over recomputing.
        storeCachedStats(key, ChannelStats{{1.0f, 2.0f}, {3.0f, 4.0f}});
        QCOMPARE(cachedChannelStats(grid, key).mean[1], 2.0f);
        // A cache that cannot be written is not an error.
        qputenv("XDG_CACHE_HOME", "/proc/no-such-place");
        QCOMPARE(cachedChannelStats(grid, key).mean[0], st.mean[0]);
        qunsetenv("XDG_CACHE_HOME");
    }

    // Every dataset opened reads the whole cache, so it must not grow without bound: a wide
    // table's per-column statistics once made it 32 MB and every later run 130 MB larger.
    void statisticsCacheStaysSmall() {
        QTemporaryDir cache;
        qputenv("XDG_CACHE_HOME", cache.path().toUtf8());
        const ChannelStats small{{1.0f}, {2.0f}};
        for (int i = 0; i < 70; ++i)
            storeCachedStats("dataset-" + std::to_string(i), small);
        QVERIFY(!loadCachedStats("dataset-0")); // stored first, evicted
        QVERIFY(!loadCachedStats("dataset-5")); // 70 - 64 = 6 evicted
        QVERIFY(loadCachedStats("dataset-6"));
        QVERIFY(loadCachedStats("dataset-69"));
        const ChannelStats wide{std::vector<float>(5000, 1.0f), std::vector<float>(5000, 1.0f)};
        storeCachedStats("wide-table", wide);
        QVERIFY(!loadCachedStats("wide-table"));
        const QString file = cache.path() + "/TrainBench/dataset-stats.json";
        QVERIFY(QFileInfo(file).size() < 64 * 1024);
        // A cache an older version let grow is pruned on its next read.
        QFile big(file);
        QVERIFY(big.open(QIODevice::WriteOnly));
        big.write("{\"kept\": {\"mean\": [1], \"std\": [2]}, \"wide\": {\"mean\": [");
        for (int i = 0; i < 600000; ++i)
            big.write("1,");
        big.write("1], \"std\": [1]}}");
        big.close();
        QVERIFY(QFileInfo(file).size() > 1024 * 1024);
        QVERIFY(loadCachedStats("kept"));
        QVERIFY(QFileInfo(file).size() < 1024);
        qunsetenv("XDG_CACHE_HOME");
    }
};

QTEST_GUILESS_MAIN(TestTransforms)
#include "tst_transforms.moc"

// The distributed sampler: every rank's shard of an epoch is disjoint from the others' (up to
// the padding), the shards cover the epoch, and their union in step order is the order one
// rank reads; a DataLoader of rank r reads exactly its shard.
#include "backend/backend.h"
#include "backend/devices.h"
#include "data/dataloader.h"
#include "data/distributedsampler.h"
#include "data/synthetic.h"

#include <QtTest>

#include <numeric>
#include <set>

using namespace tb;

class TestDistributedSampler : public QObject {
    Q_OBJECT
private slots:
    void shardsAreDisjointAndCoverTheEpoch_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<bool>("dropLast");
        QTest::newRow("even") << 12 << 2 << false;
        QTest::newRow("padded") << 10 << 4 << false;
        QTest::newRow("dropped") << 10 << 4 << true;
        QTest::newRow("more ranks than samples") << 3 << 5 << false;
    }
    void shardsAreDisjointAndCoverTheEpoch() {
        QFETCH(int, n);
        QFETCH(int, ranks);
        QFETCH(bool, dropLast);
        std::vector<int64_t> order(static_cast<std::size_t>(n));
        std::iota(order.begin(), order.end(), 0);
        std::reverse(order.begin(), order.end()); // any order: the shards follow it
        const int64_t each = shardSize(n, ranks, dropLast);
        QCOMPARE(each, dropLast ? n / ranks : (n + ranks - 1) / ranks);
        std::vector<std::vector<int64_t>> shards;
        for (int r = 0; r < ranks; ++r) {
            shards.push_back(shardOf(order, r, ranks, dropLast));
            QCOMPARE(static_cast<int64_t>(shards.back().size()), each);
        }
        // Interleaved back in step order, the shards are the order itself, padded from its
        // start (drop_last=false) or cut to a multiple of the rank count (drop_last=true).
        std::vector<int64_t> interleaved;
        for (int64_t k = 0; k < each; ++k)
            for (int r = 0; r < ranks; ++r)
                interleaved.push_back(
                    shards[static_cast<std::size_t>(r)][static_cast<std::size_t>(k)]);
        for (std::size_t i = 0; i < interleaved.size(); ++i)
            QCOMPARE(interleaved[i], order[i % order.size()]);
        std::set<int64_t> seen(interleaved.begin(), interleaved.end());
        if (!dropLast)
            QCOMPARE(static_cast<int>(seen.size()), n); // every sample of the epoch
        const std::size_t distinct = std::min<std::size_t>(interleaved.size(), order.size());
        QCOMPARE(seen.size(), distinct); // nothing repeats but the padding
    }

    // A loader of rank r reads the samples of its shard of the same seeded shuffle.
    void loaderReadsItsShard() {
        const auto data = std::make_shared<SpiralsDataset>(40, 2, 7, "spirals");
        auto backend = createBackend(Device::cpu(), 1);
        LoaderOptions o;
        o.batchSize = 4;
        o.seed = 3;
        std::vector<float> whole;
        {
            DataLoader one(data, o, *backend);
            one.startEpoch(1);
            while (auto b = one.next())
                whole.insert(whole.end(), b->inputs.data<float>(),
                             b->inputs.data<float>() + b->inputs.numel());
        }
        std::vector<std::vector<float>> parts(2);
        for (int r = 0; r < 2; ++r) {
            LoaderOptions ro = o;
            ro.rank = r;
            ro.worldSize = 2;
            ro.batchSize = 2;
            DataLoader loader(data, ro, *backend);
            QCOMPARE(loader.batchesPerEpoch(), 10);
            loader.startEpoch(1);
            while (auto b = loader.next())
                parts[static_cast<std::size_t>(r)].insert(
                    parts[static_cast<std::size_t>(r)].end(), b->inputs.data<float>(),
                    b->inputs.data<float>() + b->inputs.numel());
        }
        // Sample k of rank r is sample 2k + r of the single loader (2 features each).
        for (std::size_t k = 0; k < 20; ++k)
            for (std::size_t r = 0; r < 2; ++r)
                for (std::size_t f = 0; f < 2; ++f)
                    QCOMPARE(parts[r][2 * k + f], whole[2 * (2 * k + r) + f]);
        LoaderOptions bad = o;
        bad.rank = 2;
        bad.worldSize = 2;
        QVERIFY_THROWS_EXCEPTION(std::exception, DataLoader(data, bad, *backend));
    }
};

QTEST_GUILESS_MAIN(TestDistributedSampler)
#include "tst_distributedsampler.moc"

// DataLoader: identical batches for any num_workers, seeded shuffling, drop_last, the prefetch
// bound, prompt shutdown mid-epoch, rethrown worker errors and batches that outlive the loader.
#include "backend/backend.h"
#include "backend/kernels/random_math.h"
#include "core/errors.h"
#include "core/floatenv.h"
#include "data/dataloader.h"
#include "data/transforms.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

using namespace tb;

namespace {

// Sample i is a 2x4x4 image whose values come from i and the per-sample seed; label i % 5.
// Counts get() calls, can be slowed down and can fail on one index.
class ProbeDataset : public Dataset {
public:
    explicit ProbeDataset(int64_t n) : m_n(n) {}
    int64_t size() const override { return m_n; }
    Shape sampleShape() const override { return {2, 4, 4}; }
    int numClasses() const override { return 5; }
    int32_t label(int64_t index) const override { return static_cast<int32_t>(index % 5); }
    int32_t get(int64_t index, float* out, uint64_t seed) const override {
        m_calls.fetch_add(1);
        if (flushDenormalsEnabled())
            m_flushedCalls.fetch_add(1);
        if (m_delayMs > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(m_delayMs));
        if (index == m_failAt)
            throw DatasetError("probe.bin", index, "injected failure");
        for (int i = 0; i < 32; ++i)
            out[i] = static_cast<float>(index) + math::uniform01(seed, static_cast<uint64_t>(i));
        return label(index);
    }
    std::string description() const override { return "probe"; }

    int64_t m_n;
    int m_delayMs = 0;
    int64_t m_failAt = -1;
    mutable std::atomic<int64_t> m_calls{0};
    mutable std::atomic<int64_t> m_flushedCalls{0}; // calls on a thread flushing denormals
};

struct Epoch {
    std::vector<std::vector<float>> inputs;
    std::vector<std::vector<int32_t>> labels;
};

Epoch runEpoch(DataLoader& loader, int64_t epoch) {
    loader.startEpoch(epoch);
    Epoch e;
    while (auto b = loader.next()) {
        const float* p = b->inputs.data<float>();
        e.inputs.emplace_back(p, p + b->inputs.numel());
        const int32_t* l = b->labels.data<int32_t>();
        e.labels.emplace_back(l, l + b->labels.numel());
        if (b->index != static_cast<int64_t>(e.inputs.size()) - 1)
            throw Error("batch out of order");
    }
    return e;
}

Batch takeBatch(DataLoader& loader) {
    std::optional<Batch> b = loader.next();
    if (!b)
        throw Error("no batch");
    return std::move(*b);
}

} // namespace

class TestLoader : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { m_backend = createCpuBackend(1); }

    void sameBatchesForAnyWorkerCount_data() {
        QTest::addColumn<int>("workers");
        QTest::addColumn<bool>("augment");
        for (int w : {0, 1, 2, 4}) {
            QTest::addRow("workers-%d", w) << w << false;
            QTest::addRow("workers-%d-augment", w) << w << true;
        }
    }
    void sameBatchesForAnyWorkerCount() {
        QFETCH(int, workers);
        QFETCH(bool, augment);
        auto make = [&](int w) {
            std::shared_ptr<const Dataset> ds = std::make_shared<ProbeDataset>(203);
            if (augment)
                ds = std::make_shared<RandomCropFlipDataset>(ds, 1, true);
            LoaderOptions o;
            o.batchSize = 16;
            o.numWorkers = w;
            o.seed = 42;
            return std::make_unique<DataLoader>(ds, o, *m_backend);
        };
        auto reference = make(0);
        auto loader = make(workers);
        for (int64_t epoch : {0, 1}) {
            const Epoch want = runEpoch(*reference, epoch);
            const Epoch got = runEpoch(*loader, epoch);
            QCOMPARE(got.inputs.size(), std::size_t{13});
            QCOMPARE(got.labels.back().size(), std::size_t{203 - 12 * 16});
            QVERIFY(got.inputs == want.inputs);
            QVERIFY(got.labels == want.labels);
        }
    }

    void shufflesBySeedAndEpoch() {
        auto ds = std::make_shared<ProbeDataset>(100);
        LoaderOptions o;
        o.batchSize = 100;
        o.seed = 7;
        DataLoader a(ds, o, *m_backend);
        const Epoch e0 = runEpoch(a, 0);
        const Epoch e1 = runEpoch(a, 1);
        QVERIFY(e0.labels != e1.labels);
        QVERIFY(runEpoch(a, 0).inputs == e0.inputs);
        o.seed = 8;
        DataLoader b(ds, o, *m_backend);
        QVERIFY(runEpoch(b, 0).inputs != e0.inputs);
        o.shuffle = false;
        DataLoader c(ds, o, *m_backend);
        const Epoch plain = runEpoch(c, 3);
        for (int i = 0; i < 100; ++i)
            QCOMPARE(plain.labels[0][static_cast<std::size_t>(i)], i % 5);
    }

    void dropLastAndResume_data() {
        QTest::addColumn<bool>("dropLast");
        QTest::addColumn<int>("workers");
        QTest::newRow("keep-last") << false << 0;
        QTest::newRow("drop-last") << true << 0;
        QTest::newRow("drop-last-workers") << true << 2;
    }
    void dropLastAndResume() {
        QFETCH(bool, dropLast);
        QFETCH(int, workers);
        auto ds = std::make_shared<ProbeDataset>(50);
        LoaderOptions o;
        o.batchSize = 8;
        o.dropLast = dropLast;
        o.numWorkers = workers;
        DataLoader loader(ds, o, *m_backend);
        QCOMPARE(loader.batchesPerEpoch(), int64_t{dropLast ? 6 : 7});
        const Epoch full = runEpoch(loader, 2);
        QCOMPARE(static_cast<int64_t>(full.inputs.size()), loader.batchesPerEpoch());
        loader.startEpoch(2, 4);
        std::vector<std::vector<float>> tail;
        while (auto b = loader.next()) {
            QCOMPARE(b->index, int64_t{4} + static_cast<int64_t>(tail.size()));
            tail.emplace_back(b->inputs.data<float>(), b->inputs.data<float>() + b->inputs.numel());
        }
        QVERIFY(std::equal(tail.begin(), tail.end(), full.inputs.begin() + 4));
    }

    void neverHoldsMoreThanTheBound_data() {
        QTest::addColumn<int>("workers");
        QTest::addColumn<int>("prefetch");
        QTest::newRow("1x1") << 1 << 1;
        QTest::newRow("2x2") << 2 << 2;
        QTest::newRow("4x1") << 4 << 1;
    }
    void neverHoldsMoreThanTheBound() {
        QFETCH(int, workers);
        QFETCH(int, prefetch);
        auto ds = std::make_shared<ProbeDataset>(400);
        LoaderOptions o;
        o.batchSize = 4;
        o.numWorkers = workers;
        o.prefetchFactor = prefetch;
        DataLoader loader(ds, o, *m_backend);
        loader.startEpoch(0);
        const int64_t bound = int64_t{workers} * prefetch;
        // Nobody consumes: the workers fill the queue and then must wait.
        QTRY_COMPARE(ds->m_calls.load(), bound * 4);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        QCOMPARE(ds->m_calls.load(), bound * 4);
        QCOMPARE(loader.stats().held, bound);
        std::vector<Batch> kept; // the consumer's own batches do not count against the bound
        while (auto b = loader.next()) {
            QVERIFY(loader.stats().held <= bound);
            if (kept.size() < 3)
                kept.push_back(std::move(*b));
        }
        const LoaderStats s = loader.stats();
        QCOMPARE(s.peakHeld, bound);
        // Buffers: a full queue, the batch being handed over, and the three kept.
        const int64_t ceiling = bound + 1 + 3;
        QVERIFY(s.buffersAllocated <= ceiling);
        kept.clear();
        runEpoch(loader, 1);
        runEpoch(loader, 2);
        // Recycled: 300 batches later the pool has not grown past the ceiling.
        QVERIFY(loader.stats().buffersAllocated <= ceiling);
    }

    void stopsPromptlyMidEpoch_data() {
        QTest::addColumn<int>("workers");
        QTest::addColumn<int>("delayMs");
        QTest::addColumn<QString>("how");
        QTest::newRow("full-queue-destroy") << 4 << 0 << "destroy";
        QTest::newRow("slow-samples-destroy") << 2 << 20 << "destroy";
        QTest::newRow("full-queue-stop") << 2 << 0 << "stop";
        QTest::newRow("restart-epoch") << 2 << 5 << "restart";
    }
    void stopsPromptlyMidEpoch() {
        QFETCH(int, workers);
        QFETCH(int, delayMs);
        QFETCH(QString, how);
        auto ds = std::make_shared<ProbeDataset>(10000);
        ds->m_delayMs = delayMs;
        LoaderOptions o;
        o.batchSize = 32;
        o.numWorkers = workers;
        auto loader = std::make_unique<DataLoader>(ds, o, *m_backend);
        loader->startEpoch(0);
        Batch held = takeBatch(*loader);
        // Stopped while the workers are at work on later batches (each has begun one).
        QTRY_VERIFY(ds->m_calls.load() >= 32 + workers);
        QElapsedTimer timer;
        timer.start();
        if (how == "destroy") {
            loader.reset();
        } else if (how == "stop") {
            loader->stop();
            QVERIFY(!loader->next());
        } else {
            loader->startEpoch(1);
            QVERIFY(loader->next());
            loader->stop();
        }
        QVERIFY2(timer.elapsed() < 1000, "workers were not joined promptly");
        // The batch the consumer still holds stays valid after the loader is gone.
        const int32_t label = held.labels.data<int32_t>()[31];
        const float v = held.inputs.data<float>()[31 * 32];
        QCOMPARE(label, static_cast<int32_t>(v) % 5);
    }

    void rethrowsWorkerErrors_data() {
        QTest::addColumn<int>("workers");
        QTest::newRow("workers-0") << 0;
        QTest::newRow("workers-1") << 1;
        QTest::newRow("workers-3") << 3;
    }
    void rethrowsWorkerErrors() {
        QFETCH(int, workers);
        auto ds = std::make_shared<ProbeDataset>(100);
        ds->m_failAt = 37;
        LoaderOptions o;
        o.batchSize = 10;
        o.shuffle = false;
        o.numWorkers = workers;
        DataLoader loader(ds, o, *m_backend);
        loader.startEpoch(0);
        int good = 0;
        try {
            while (loader.next())
                ++good;
            QFAIL("the worker's error was lost");
        } catch (const DatasetError& e) {
            QCOMPARE(e.offset(), int64_t{37});
        }
        QCOMPARE(good, 3);
        QVERIFY(!loader.next()); // the epoch ended with the error
        ds->m_failAt = -1;
        QCOMPARE(runEpoch(loader, 1).inputs.size(), std::size_t{10});
    }

    void measuresTimes() {
        auto ds = std::make_shared<ProbeDataset>(64);
        ds->m_delayMs = 1;
        LoaderOptions o;
        o.batchSize = 8;
        o.numWorkers = 1;
        o.pinMemory = true; // no effect on the CPU backend
        DataLoader loader(ds, o, *m_backend);
        QCOMPARE(loader.pinned(), m_backend->supportsPinnedMemory());
        loader.startEpoch(0);
        auto b = loader.next();
        QVERIFY(b);
        QVERIFY(b->produceMs >= 7.0);
        QCOMPARE(b->inputs.pinned(), loader.pinned());
        QVERIFY(b->waitMs >= 0.0);
    }

    void rejectsBadOptions_data() {
        QTest::addColumn<QString>("field");
        QTest::newRow("batch_size") << "batch_size";
        QTest::newRow("num_workers") << "num_workers";
        QTest::newRow("prefetch_factor") << "prefetch_factor";
    }
    void rejectsBadOptions() {
        QFETCH(QString, field);
        LoaderOptions o;
        if (field == "batch_size")
            o.batchSize = 0;
        else if (field == "num_workers")
            o.numWorkers = -1;
        else
            o.prefetchFactor = 0;
        try {
            DataLoader loader(std::make_shared<ProbeDataset>(10), o, *m_backend);
            QFAIL("accepted a bad option");
        } catch (const ConfigError& e) {
            QCOMPARE(QString::fromStdString(e.field()), field);
        }
    }

    // Workers decode and normalise in the float mode of the run's compute threads: denormals
    // flushed (the default, as the trainer asks) or kept, whatever thread made the loader.
    void workersFlushDenormalsAsAsked() {
        for (bool flush : {true, false}) {
            auto ds = std::make_shared<ProbeDataset>(96);
            LoaderOptions o;
            o.batchSize = 8;
            o.numWorkers = 2;
            o.flushDenormals = flush;
            DataLoader loader(ds, o, *m_backend);
            runEpoch(loader, 0);
            QCOMPARE(ds->m_calls.load(), int64_t{96});
            QCOMPARE(ds->m_flushedCalls.load(), flush ? int64_t{96} : int64_t{0});
        }
    }

    void cleanupTestCase() { m_backend.reset(); }

private:
    std::unique_ptr<Backend> m_backend;
};

QTEST_GUILESS_MAIN(TestLoader)
#include "tst_loader.moc"

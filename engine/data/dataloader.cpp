// DataLoader: seeded per-epoch order, workers (std::jthread) that claim batches in order up to
// num_workers * prefetch_factor ahead of the consumer, and collation into pooled host buffers.
#include "data/dataloader.h"

#include "backend/backend.h"
#include "backend/kernels/random_math.h"
#include "core/errors.h"
#include "core/floatenv.h"
#include "data/batchpool.h"
#include "data/distributedsampler.h"
#include "data/transforms.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

namespace tb {

uint64_t epochSeed(uint64_t seed, int64_t epoch) {
    return math::mix64(seed, static_cast<uint64_t>(epoch));
}

uint64_t sampleSeed(uint64_t epochSeed, int64_t index) {
    return math::mix64(epochSeed, static_cast<uint64_t>(index));
}

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// A finished batch or the error a worker hit while making it.
struct Slot {
    Batch batch;
    std::exception_ptr error;
};

} // namespace

struct DataLoader::Impl {
    Impl(std::shared_ptr<const Dataset> ds, const LoaderOptions& o, Backend& b)
        : dataset(std::move(ds)), options(o), backend(b) {}

    std::shared_ptr<const Dataset> dataset;
    LoaderOptions options;
    Backend& backend;
    bool pinned = false;
    int64_t batches = 0;
    int64_t capacity = 0; // most batches held at once when workers run
    std::shared_ptr<BatchPool> pool;

    // The epoch in progress. order and epochSeed change only while no worker runs.
    int64_t epoch = -1;
    uint64_t epochSeed = 0;
    std::vector<int64_t> order;

    mutable std::mutex mutex;
    std::condition_variable_any changed; // a batch finished, or room was made
    int64_t nextConsume = 0;             // guarded by mutex
    int64_t nextClaim = 0;               // guarded by mutex
    bool failed = false;                 // guarded by mutex: a worker hit an error
    std::map<int64_t, Slot> ready;       // guarded by mutex
    int64_t peakHeld = 0;                // guarded by mutex
    std::vector<std::jthread> workers;

    // Decodes, augments and collates batch b. Returns false when stopped part-way.
    bool produce(int64_t b, Batch& out, const std::stop_token& stop) const {
        const auto t0 = Clock::now();
        const auto n = static_cast<int64_t>(order.size());
        const int64_t begin = b * options.batchSize;
        const int64_t count = std::min(options.batchSize, n - begin);
        BatchPool::Lease lease = pool->acquire(count);
        const int64_t stride = dataset->sampleShape().numel();
        const int64_t targets = dataset->targetsPerSample();
        const int64_t boxFloats = dataset->maxBoxes() * kBoxColumns;
        float* in = lease.inputs.data<float>();
        for (int64_t i = 0; i < count; ++i) {
            if (stop.stop_requested())
                return false;
            const int64_t index = order[static_cast<std::size_t>(begin + i)];
            const uint64_t seed = sampleSeed(epochSeed, index);
            if (boxFloats > 0)
                dataset->sampleBoxes(index, in + i * stride,
                                     lease.labels.data<float>() + i * boxFloats, seed);
            else
                dataset->sample(index, in + i * stride, lease.labels.data<int32_t>() + i * targets,
                                seed);
        }
        out.inputs = std::move(lease.inputs);
        out.labels = std::move(lease.labels);
        out.index = b;
        out.produceMs = msSince(t0);
        return true;
    }

    void workerLoop(const std::stop_token& stop) {
        setFlushDenormals(options.flushDenormals);
        while (!stop.stop_requested()) {
            int64_t b = 0;
            {
                std::unique_lock lock(mutex);
                const bool go = changed.wait(lock, stop, [&] {
                    return failed || nextClaim >= batches || nextClaim - nextConsume < capacity;
                });
                if (!go || failed || nextClaim >= batches)
                    return;
                b = nextClaim++;
                peakHeld = std::max(peakHeld, nextClaim - nextConsume);
            }
            Slot slot;
            try {
                if (!produce(b, slot.batch, stop))
                    return;
            } catch (...) {
                slot.error = std::current_exception();
            }
            {
                std::lock_guard lock(mutex);
                if (slot.error)
                    failed = true;
                ready.emplace(b, std::move(slot));
            }
            changed.notify_all();
        }
    }

    void stopWorkers() {
        for (auto& w : workers)
            w.request_stop();
        workers.clear(); // joins
        std::map<int64_t, Slot> dropped;
        {
            std::lock_guard lock(mutex);
            dropped.swap(ready);
            failed = false;
        }
        // dropped batches return their buffers to the pool here, outside the lock
    }
};

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, const LoaderOptions& options,
                       Backend& hostAllocator)
    : m_impl(std::make_unique<Impl>(std::move(dataset), options, hostAllocator)) {
    Impl& d = *m_impl;
    if (!d.dataset)
        throw ConfigError("dataset", "no dataset given to the DataLoader");
    if (options.batchSize < 1)
        throw ConfigError("batch_size", "must be at least 1");
    if (options.numWorkers < 0)
        throw ConfigError("num_workers", "must be 0 or more");
    if (options.prefetchFactor < 1)
        throw ConfigError("prefetch_factor", "must be at least 1");
    if (options.worldSize < 1 || options.rank < 0 || options.rank >= options.worldSize)
        throw ConfigError("distributed", "rank " + std::to_string(options.rank) +
                                             " is not one of " + std::to_string(options.worldSize));
    const int64_t n = shardSize(d.dataset->size(), options.worldSize, options.dropLast);
    d.batches =
        options.dropLast ? n / options.batchSize : (n + options.batchSize - 1) / options.batchSize;
    d.capacity = int64_t{options.numWorkers} * options.prefetchFactor;
    d.pinned = options.pinMemory && hostAllocator.supportsPinnedMemory();
    const Dataset& set = *d.dataset;
    const int64_t targets = set.targetsPerSample();
    d.pool = set.maxBoxes() > 0
                 ? std::make_shared<BatchPool>(hostAllocator, d.pinned, options.batchSize,
                                               set.sampleShape(),
                                               Shape{set.maxBoxes(), kBoxColumns}, DType::F32)
                 : std::make_shared<BatchPool>(hostAllocator, d.pinned, options.batchSize,
                                               set.sampleShape(),
                                               targets == 1 ? Shape{} : Shape{targets});
}

DataLoader::~DataLoader() {
    stop();
}

int64_t DataLoader::batchesPerEpoch() const {
    return m_impl->batches;
}

const Dataset& DataLoader::dataset() const {
    return *m_impl->dataset;
}

bool DataLoader::pinned() const {
    return m_impl->pinned;
}

void DataLoader::startEpoch(int64_t epoch, int64_t firstBatch) {
    Impl& d = *m_impl;
    d.stopWorkers();
    d.epoch = epoch;
    d.epochSeed = tb::epochSeed(d.options.seed, epoch);
    const int64_t n = d.dataset->size();
    if (d.options.shuffle) {
        d.order = seededPermutation(n, math::mix64(d.epochSeed, 0x5a0ff1eull));
    } else {
        d.order.resize(static_cast<std::size_t>(n));
        for (int64_t i = 0; i < n; ++i)
            d.order[static_cast<std::size_t>(i)] = i;
    }
    if (d.options.worldSize > 1)
        d.order = shardOf(d.order, d.options.rank, d.options.worldSize, d.options.dropLast);
    const int64_t first = std::clamp<int64_t>(firstBatch, 0, d.batches);
    {
        std::lock_guard lock(d.mutex);
        d.nextConsume = first;
        d.nextClaim = first;
    }
    if (d.options.numWorkers == 0 || first >= d.batches)
        return;
    // Buffers for a full queue plus the batch the consumer holds, allocated on this thread.
    d.pool->reserve(d.capacity + 1);
    for (int i = 0; i < d.options.numWorkers; ++i)
        d.workers.emplace_back([&d](std::stop_token st) { d.workerLoop(st); });
}

std::optional<Batch> DataLoader::next() {
    Impl& d = *m_impl;
    if (d.epoch < 0)
        startEpoch(0);
    const auto t0 = Clock::now();
    if (d.options.numWorkers == 0) {
        int64_t b = 0;
        {
            std::lock_guard lock(d.mutex);
            if (d.nextConsume >= d.batches)
                return std::nullopt;
            b = d.nextConsume++;
            d.nextClaim = d.nextConsume;
            d.peakHeld = std::max<int64_t>(d.peakHeld, 1);
        }
        Batch batch;
        try {
            d.produce(b, batch, std::stop_token());
        } catch (...) {
            std::lock_guard lock(d.mutex);
            d.nextConsume = d.nextClaim = d.batches; // the epoch ends with the error
            throw;
        }
        batch.waitMs = msSince(t0);
        return batch;
    }
    Slot slot;
    {
        std::unique_lock lock(d.mutex);
        if (d.nextConsume >= d.batches)
            return std::nullopt;
        d.changed.wait(lock, [&] { return d.ready.count(d.nextConsume) > 0; });
        auto it = d.ready.find(d.nextConsume);
        slot = std::move(it->second);
        d.ready.erase(it);
        ++d.nextConsume;
    }
    d.changed.notify_all();
    if (slot.error) {
        d.stopWorkers();
        {
            std::lock_guard lock(d.mutex);
            d.nextConsume = d.batches; // the epoch ends with the error
        }
        std::rethrow_exception(slot.error);
    }
    slot.batch.waitMs = msSince(t0);
    return std::move(slot.batch);
}

void DataLoader::stop() {
    Impl& d = *m_impl;
    d.stopWorkers();
    std::lock_guard lock(d.mutex);
    d.nextConsume = d.batches;
    d.nextClaim = d.batches;
}

LoaderStats DataLoader::stats() const {
    const Impl& d = *m_impl;
    LoaderStats s;
    {
        std::lock_guard lock(d.mutex);
        s.ready = static_cast<int64_t>(d.ready.size());
        s.held = d.nextClaim - d.nextConsume;
        s.peakHeld = d.peakHeld;
    }
    s.buffersAllocated = d.pool->allocated();
    return s;
}

} // namespace tb

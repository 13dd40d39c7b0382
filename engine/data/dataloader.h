// DataLoader with PyTorch's semantics: seeded shuffling per epoch, drop_last, num_workers
// threads (0 = load on the caller's thread), a bounded prefetch queue and pinned host batches.
#pragma once

#include "core/tensor.h"
#include "data/dataset.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace tb {

class Backend;

struct LoaderOptions {
    int64_t batchSize = 64;
    bool shuffle = true;
    bool dropLast = false;
    int numWorkers = 0;
    int prefetchFactor = 2;
    bool pinMemory = false;
    uint64_t seed = 0;
    // Workers flush denormal floats to zero as the run's compute threads do (core/floatenv.h).
    bool flushDenormals = true;
    // A data-parallel job: this rank reads its shard of every epoch (data/distributedsampler.h).
    int rank = 0;
    int worldSize = 1;
};

// The seeds of an epoch and of one sample's augmentation in it: they depend only on (seed,
// epoch, sample index), never on the worker count. A view of what training draws (dataset-info
// --augmented, the set-up panel) seeds a sample with the same.
uint64_t epochSeed(uint64_t seed, int64_t epoch);
uint64_t sampleSeed(uint64_t epochSeed, int64_t index);

// One collated batch in host memory. Holding it keeps its buffer out of the loader's pool.
struct Batch {
    Tensor inputs; // f32 (n, sample shape...)
    // i32 (n), or (n, t): a text sample's target at each position; for detection f32
    // (n, maxBoxes, kBoxColumns): each sample's boxes (Dataset::sampleBoxes).
    Tensor labels;
    int64_t index = 0;      // position in the epoch
    double waitMs = 0.0;    // how long next() blocked for it
    double produceMs = 0.0; // how long a worker took to decode, augment and collate it
};

// What the loader holds now and has held, for the UI, the advisor and the tests.
struct LoaderStats {
    int64_t ready = 0;            // finished batches waiting for next()
    int64_t held = 0;             // batches claimed by workers and not yet taken by next()
    int64_t peakHeld = 0;         // most batches held at once since the loader was made
    int64_t buffersAllocated = 0; // batch buffers the pool has allocated so far
};

class DataLoader {
public:
    // hostAllocator provides (pinned) host memory for batches; it must outlive the loader.
    DataLoader(std::shared_ptr<const Dataset> dataset, const LoaderOptions& options,
               Backend& hostAllocator);
    ~DataLoader();
    DataLoader(const DataLoader&) = delete;
    DataLoader& operator=(const DataLoader&) = delete;

    int64_t batchesPerEpoch() const;
    const Dataset& dataset() const;
    // Whether batches really are page-locked (false on the CPU backend, where it has no effect).
    bool pinned() const;

    // Begins epoch `epoch` (its shuffle order is seeded by seed and epoch), skipping the first
    // `firstBatch` batches, as a resumed run does. Stops any epoch in progress.
    void startEpoch(int64_t epoch, int64_t firstBatch = 0);
    // The next batch, in order, or nullopt at the end of the epoch. Rethrows a worker's error.
    std::optional<Batch> next();
    // Stops and joins the workers; pending batches are dropped.
    void stop();
    // A snapshot of the prefetch queue and the buffer pool. Thread-safe.
    LoaderStats stats() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace tb

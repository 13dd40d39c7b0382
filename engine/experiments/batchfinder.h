// The batch-size finder: the largest batch that trains on the chosen device, as Lightning's
// BatchSizeFinder searches it: doubling from a start until a batch fails, then a binary search
// between the last that fitted and the first that did not. Each try is a short real run; a
// batch fails when its run runs out of memory (the trainer's estimate against the free memory,
// or the device's own allocation failure), which the search survives, or, against a limit the
// user sets (useful on the CPU, where "out of memory" means swapping), when its peak memory
// passes that limit.
#pragma once

#include "session/runsession.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace tb {

struct BatchTry;

struct BatchFinderOptions {
    int64_t start = 8;
    int64_t maxBatch = 65536;
    int steps = 3;                 // optimizer steps per try
    uint64_t memoryLimitBytes = 0; // 0: only real out-of-memory failures count
    // Called after each try, on the searching thread (the window lists them as they end).
    std::function<void(const BatchTry&)> onTry;
};

struct BatchTry {
    int64_t batch = 0;
    bool fits = false;
    uint64_t peakMemoryBytes = 0;
    std::string why; // of a failure: the out-of-memory error, or the limit passed
};

struct BatchFinderResult {
    std::optional<int64_t> largest; // nullopt: not even the start fitted
    std::vector<BatchTry> tries;    // in the order tried
    bool stopped = false;
};

// The search alone, over any trial (tests give a fake one): doubling, then bisection; trials
// at most log2(maxBatch / start) + log2 of the last gap.
BatchFinderResult searchLargestBatch(const BatchFinderOptions& options,
                                     const std::function<BatchTry(int64_t)>& trial,
                                     std::stop_token stop = {});

// The search with real runs of `base` (max_steps = options.steps, not recorded).
BatchFinderResult findLargestBatch(const RunConfig& base, const BatchFinderOptions& options,
                                   std::stop_token stop = {});

} // namespace tb

// Loops over the shared OpenMP pool that stay serial for work too small to split: waking the
// pool costs tens of microseconds, about what 64K cheap elementwise operations take.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace tb {

constexpr int64_t kParallelGrain = 65536;

// body(i) for i in [0, n); for work whose iterations are not plain arithmetic.
template <typename F> void parallelFor(int64_t n, F&& body, int64_t grain = kParallelGrain) {
#pragma omp parallel for schedule(static) if (n >= grain)
    for (int64_t i = 0; i < n; ++i)
        body(i);
}

// body(begin, end) on one contiguous chunk per thread, so the body's inner loop can vectorise.
template <typename F> void parallelChunks(int64_t n, F&& body, int64_t grain = kParallelGrain) {
    if (n < grain || omp_get_max_threads() == 1) {
        body(int64_t{0}, n);
        return;
    }
#pragma omp parallel
    {
        const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
        const int64_t chunk = (n + threads - 1) / threads;
        const int64_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
        body(begin, end);
    }
}

} // namespace tb

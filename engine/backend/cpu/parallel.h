// parallelFor over the shared OpenMP pool, staying serial for work too small to split: waking
// the pool costs tens of microseconds, about what 64K cheap elementwise operations take.
#pragma once

#include <cstdint>

namespace tb {

constexpr int64_t kParallelGrain = 65536;

template <typename F> void parallelFor(int64_t n, F&& body, int64_t grain = kParallelGrain) {
#pragma omp parallel for schedule(static) if (n >= grain)
    for (int64_t i = 0; i < n; ++i)
        body(i);
}

} // namespace tb

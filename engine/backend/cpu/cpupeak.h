// The f32 compute peak this machine reaches with the CPU backend's own library, so a benchmark
// can say how far a training step is from the hardware. Measured once per CPU model, ISA and
// thread count, then read from a small JSON cache.
#pragma once

#include <string>

namespace tb {

struct CpuPeak {
    double gflops = 0.0;   // f32 GFLOP/s over all threads
    bool measured = false; // true when this call measured it; false when it came from the cache
};

// f32 GFLOP/s of `threads` threads each multiplying cache-resident matrices with oneDNN's sgemm.
// Takes a tenth of a second on a current core. Throws Error when oneDNN fails.
double measureCpuPeakGflops(int threads);

// The peak for (cpuModel, oneDNN's ISA, threads) from the JSON file cachePath, else measured and
// stored there (folders created; a cache that cannot be read or written is measured around, never
// an error).
CpuPeak cachedCpuPeak(int threads, const std::string& cpuModel, const std::string& cachePath);

} // namespace tb

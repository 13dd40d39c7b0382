// The f32 compute peak this machine reaches with the CPU backend's own library, so a benchmark
// can say how far a training step is from the hardware. Measured per CPU model, ISA and thread
// count and kept in a small JSON cache, which is refreshed when it is old or proven low.
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

// A cached peak is measured again once it is older than this.
constexpr double kCpuPeakMaxAgeSeconds = 24.0 * 3600.0;

// The peak for (cpuModel, oneDNN's ISA, threads) from the JSON file cachePath. It is measured
// (and stored) when the cache has no entry, the entry is older than kCpuPeakMaxAgeSeconds, or it
// is below `achievedGflops` (an f32 run that beat the "peak" proves the peak was measured on a
// busy machine). The cache keeps the best of its measurements: a peak is an upper bound, so a
// low figure from a busy moment never replaces a higher one. Folders are created; a cache that
// cannot be read or written is measured around, never an error.
CpuPeak cachedCpuPeak(int threads, const std::string& cpuModel, const std::string& cachePath,
                      double achievedGflops = 0.0);

} // namespace tb

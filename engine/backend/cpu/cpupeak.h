// The machine's two roofs for the CPU backend: the f32 compute peak it reaches with its own
// library and the memory bandwidth of its threads, so a benchmark or a profile can say how far
// a step or a layer is from the hardware. Measured per CPU model, ISA and thread count and kept
// in a small JSON cache, which is refreshed when it is old or proven low.
#pragma once

#include <string>

namespace tb {

struct CpuPeak {
    double gflops = 0.0;   // f32 GFLOP/s over all threads (GB/s for cachedCpuBandwidth)
    bool measured = false; // true when this call measured it; false when it came from the cache
};

// f32 GFLOP/s of `threads` threads each multiplying cache-resident matrices with oneDNN's sgemm.
// Takes a tenth of a second on a current core. Throws Error when oneDNN fails.
double measureCpuPeakGflops(int threads);

// bf16 GFLOP/s (f32 accumulation) of `threads` threads each running oneDNN's bf16 matmul on
// cache-resident matrices, as measureCpuPeakGflops does sgemm. Meaningful where the CPU computes
// bf16 natively (cpuLowPrecisionSupport().bf16Native); elsewhere oneDNN widens to f32. Throws
// Error when oneDNN fails.
double measureCpuBf16PeakGflops(int threads);

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
// The bf16 peak, cached beside it by the same rules.
CpuPeak cachedCpuBf16Peak(int threads, const std::string& cpuModel, const std::string& cachePath);

// GB/s of `threads` threads running STREAM's triad (a[i] = b[i] + s * c[i]) over arrays far
// larger than any cache, counting 12 bytes an element as STREAM does; the best of 10 passes.
double measureCpuBandwidthGBs(int threads);

// The bandwidth for (cpuModel, threads), cached in cachePath beside the peak, by the same rules.
CpuPeak cachedCpuBandwidth(int threads, const std::string& cpuModel, const std::string& cachePath,
                           double achievedGBs = 0.0);

} // namespace tb

// CudaBackend::roofline: the GPU's compute roof from its SM count, clock and the arithmetic
// rate per SM and clock of its architecture (NVIDIA's datasheet figures, dense, no sparsity),
// and its memory roof measured: a device-to-device copy of 256 MiB, read and written, the best
// of five. The measurement runs once per device and process, outside the profiled steps.
// Also the NVTX ranges Nsight Systems shows for profiled layers.
#include "cudabackend.h"
#include "deviceinfo.h"
#include "streams.h"

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <map>
#include <mutex>

namespace tb::cuda {

namespace {

// FLOPs per SM per clock of the tensor cores at 16-bit inputs with f32 accumulation (what
// mixed precision runs), dense: V100, T4 1024; A100 2048; H100 4096; B200 8192. GeForce and
// workstation parts of one architecture differ (8.6, 8.9, 12.x: 512 on GeForce with f32
// accumulation, 1024 on the A/L-series); the lower figure is taken, so such a roof may be passed.
int tensorFlopsPerSmClock(int major, int minor, bool bf16) {
    if (major < 7 || (bf16 && major < 8)) // no tensor cores, or none for bf16 (Volta, Turing)
        return 0;
    switch (major) {
    case 7:
        return 1024;
    case 8:
        return minor == 0 ? 2048 : 512;
    case 9:
        return 4096;
    case 10:
        return 8192;
    default:
        return 512;
    }
}

std::string smName(int major, int minor) {
    return "sm_" + std::to_string(major) + std::to_string(minor);
}

} // namespace

Roofline CudaBackend::roofline(const std::string& precision) {
    Roofline r;
    int sms = 0, clockKhz = 0, major = 0, minor = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, m_index) != cudaSuccess ||
        cudaDeviceGetAttribute(&clockKhz, cudaDevAttrClockRate, m_index) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, m_index) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, m_index) != cudaSuccess) {
        r.peakSource = "the device's attributes could not be read";
        return r;
    }
    const bool mixed = precision == "16-mixed" || precision == "bf16-mixed";
    const int tensor = mixed ? tensorFlopsPerSmClock(major, minor, precision == "bf16-mixed") : 0;
    const int perClock = tensor > 0 ? tensor : 2 * coresPerSm(major, minor); // an FMA is 2 FLOPs
    const double clockGhz = clockKhz / 1e6;
    r.peakGflops = sms * clockGhz * perClock;
    r.peakSource = smName(major, minor) + ": " + std::to_string(sms) + " SMs x " +
                   std::to_string(clockKhz / 1000) + " MHz x " + std::to_string(perClock) +
                   (tensor > 0 ? " FLOP/clock (tensor cores, dense, f32 accumulation)"
                               : " FLOP/clock (FP32 cores)");

    static std::mutex mutex;
    static std::map<int, double> measured; // GB/s per device index, once per process
    std::lock_guard lock(mutex);
    if (!measured.count(m_index)) {
        // On this backend's device (a rank's, not device 0), with the allocator's cached blocks
        // handed back first so that the two buffers fit beside a run's working set.
        const DeviceScope scope(m_index);
        releaseCachedMemory();
        constexpr std::size_t kBytes = std::size_t{256} << 20;
        void* a = nullptr;
        void* b = nullptr;
        double best = 0.0;
        if (cudaMalloc(&a, kBytes) == cudaSuccess && cudaMalloc(&b, kBytes) == cudaSuccess) {
            cudaStream_t s = stream();
            cudaEvent_t start = nullptr, end = nullptr;
            cudaEventCreate(&start);
            cudaEventCreate(&end);
            cudaMemcpyAsync(b, a, kBytes, cudaMemcpyDeviceToDevice, s); // warm-up
            for (int i = 0; i < 5; ++i) {
                cudaEventRecord(start, s);
                cudaMemcpyAsync(b, a, kBytes, cudaMemcpyDeviceToDevice, s);
                cudaEventRecord(end, s);
                float ms = 0.0f;
                if (cudaEventSynchronize(end) == cudaSuccess &&
                    cudaEventElapsedTime(&ms, start, end) == cudaSuccess && ms > 0.0f)
                    best = std::max(best, 2.0 * kBytes / (ms / 1e3) / 1e9);
            }
            cudaEventDestroy(start);
            cudaEventDestroy(end);
        }
        cudaFree(a);
        cudaFree(b);
        (void)cudaGetLastError(); // a failed allocation is reported as an unknown roof, not later
        measured[m_index] = best;
    }
    r.bandwidthGBs = measured[m_index];
    r.bandwidthSource = r.bandwidthGBs > 0
                            ? "a device-to-device copy of 256 MiB, read and written, best of 5"
                            : "could not be measured (no 512 MiB free for the copy)";
    return r;
}

void CudaBackend::pushRange(const std::string& name) {
    nvtxRangePushA(name.c_str());
}

void CudaBackend::popRange() {
    nvtxRangePop();
}

} // namespace tb::cuda

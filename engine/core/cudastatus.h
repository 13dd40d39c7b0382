// What the CUDA plugin found: the driver, the CUDA libraries and each GPU, or why the GPU cannot be
// used. Plain data (backend/devices.h probes it), so the window can show it without the backend.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

struct GpuInfo {
    int index = 0;
    std::string name;
    int computeMajor = 0;
    int computeMinor = 0;
    int smCount = 0;
    int cudaCores = 0;        // SMs x FP32 cores per SM for the architecture
    uint64_t totalMemory = 0; // bytes
    int memoryBusWidthBits = 0;
    int memoryClockKHz = 0;
    double bandwidthGBps = 0.0; // 2 (DDR) x clock x bus width / 8
    std::string pciBusId;
};

struct CudaStatus {
    bool usable = false;
    // Why not, in words a user can act on ("plugin not built", "libcudart.so.13 not found",
    // "no NVIDIA driver", "driver 12.2 is older than the CUDA 13.0 runtime", "no device").
    std::string reason;
    std::string advice;
    std::string pluginPath; // where the plugin was looked for or loaded from
    int driverVersion = 0;  // cudaDriverGetVersion, e.g. 13000
    int runtimeVersion = 0; // cudaRuntimeGetVersion
    int cudnnVersion = 0;   // cudnnGetVersion, e.g. 90100
    int cublasVersion = 0;
    int ncclVersion = 0;    // ncclGetVersion, e.g. 22809 (2.28.9); 0 when NCCL was not opened
    std::string ncclReason; // why ncclVersion is 0 (only doctor's probe opens NCCL)
    std::vector<GpuInfo> gpus;
};

} // namespace tb

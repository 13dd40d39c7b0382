// Choosing and creating a backend: the CPU one always, the CUDA plugin when it loads and finds a
// usable GPU. probeCuda() says exactly why the GPU cannot be used when it cannot.
#pragma once

#include "backend/backend.h"
#include "core/device.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
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
    std::vector<GpuInfo> gpus;
};

// Loads the plugin once (thread-safe) and reports what it found; never throws. Without an
// NVIDIA driver it stops there and leaves the CUDA libraries unloaded.
const CudaStatus& probeCuda();
// The same, but loads the plugin and its CUDA libraries even without a driver, so `doctor` can
// report their versions. Costs the libraries' memory; not for training processes.
const CudaStatus& probeCudaLibraries();

// "auto" picks cuda:0 when probeCuda().usable, else the CPU. Throws ConfigError("device") for
// malformed text and BackendUnavailable for a CUDA device that cannot be used.
Device resolveDevice(const std::string& text);

// Creates the backend for a device; threads sizes the CPU compute pool (also used by the host
// side of a GPU run). Throws BackendUnavailable with the reason.
std::unique_ptr<Backend> createBackend(const Device& device, int threads);

nlohmann::json toJson(const CudaStatus& status);

} // namespace tb

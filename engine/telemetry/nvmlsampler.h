// NvmlSampler: per-GPU readings through NVML, loaded at run time with dlopen so TrainBench runs
// (and says why there are no GPU readings) on machines without the NVIDIA driver.
#pragma once

#include "core/systemsample.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tb {

// What `doctor` prints about the NVIDIA driver.
struct NvmlFacts {
    bool available = false;
    std::string error;                    // why not available
    std::string driverVersion;            // "550.54.15"
    std::optional<int> cudaDriverVersion; // 12040 for CUDA 12.4 (the driver's, not the toolkit's)
    std::vector<std::string> gpuNames;    // by NVML index
    std::vector<std::optional<uint64_t>> gpuMemoryBytes;
};

// "12.4" for 12040.
std::string formatCudaVersion(int version);

// Loads NVML and initialises it. Not thread-safe: use from one thread (the telemetry thread);
// a `doctor` can make its own. Never throws: when NVML is missing or fails, available() is false,
// lastError() says why ("NVML not available: libnvidia-ml.so.1 not found") and sample() returns
// no GPUs.
class NvmlSampler {
public:
    // library: the file to dlopen; tests pass a fake NVML.
    explicit NvmlSampler(const std::string& library = "libnvidia-ml.so.1");
    ~NvmlSampler(); // nvmlShutdown and dlclose
    NvmlSampler(const NvmlSampler&) = delete;
    NvmlSampler& operator=(const NvmlSampler&) = delete;

    bool available() const;
    // Why NVML is unavailable, or the last call that failed for a reason other than "not
    // supported" (e.g. a GPU fell off the bus). Empty when all is well.
    const std::string& lastError() const { return m_error; }
    NvmlFacts facts() const;

    // One reading per GPU. A metric the GPU or driver does not support stays std::nullopt.
    std::vector<GpuSample> sample();

private:
    struct Api;
    std::unique_ptr<Api> m_api;
    std::string m_error;
};

} // namespace tb

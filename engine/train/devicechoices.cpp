// deviceChoices: the plugin's probe turned into what a device picker lists.
#include "train/devicechoices.h"

#include "backend/devices.h"
#include "core/errors.h"
#include "core/hostmemory.h"

namespace tb {

const CudaStatus& gpuBackendStatus() {
    return probeCuda();
}

std::vector<DeviceChoice> deviceChoices() {
    const CudaStatus& cuda = probeCuda();
    std::vector<DeviceChoice> out;
    out.push_back({"auto", cuda.usable ? "auto (the GPU)" : "auto (the CPU)", true, {}});
    out.push_back({"cpu", "cpu", true, {}});
    for (const GpuInfo& gpu : cuda.gpus) {
        const std::string value = "cuda:" + std::to_string(gpu.index);
        out.push_back({value, value + "  " + gpu.name + ", " + formatBytes(gpu.totalMemory),
                       cuda.usable, cuda.usable ? std::string() : cuda.reason});
    }
    if (!cuda.usable)
        out.push_back({{},
                       "GPU: unavailable (" + cuda.reason + ")",
                       false,
                       cuda.reason + (cuda.advice.empty() ? "" : ". " + cuda.advice)});
    return out;
}

uint64_t deviceMemoryBytes(const std::string& device) {
    const CudaStatus& cuda = probeCuda();
    std::string name = device;
    if (name == "auto")
        name = cuda.usable && !cuda.gpus.empty() ? "cuda:0" : "cpu";
    if (name == "cpu") {
        const auto host = hostMemory();
        return host ? host->total : 0;
    }
    for (const GpuInfo& gpu : cuda.gpus)
        if (name == "cuda:" + std::to_string(gpu.index))
            return gpu.totalMemory;
    return 0;
}

} // namespace tb

// Where a run can train, as a form offers it for the `device` key: auto, cpu and every GPU the
// CUDA plugin reports; where the GPU backend cannot be used, one entry that says why. Also how
// much memory each device has, for the training-memory estimate.
#pragma once

#include "core/cudastatus.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

struct DeviceChoice {
    std::string value; // what `device` takes ("auto", "cpu", "cuda:0"); empty when !usable
    std::string label; // "auto (the CPU)", "cuda:0  NVIDIA H200, 139.8 GiB"
    bool usable = true;
    std::string reason; // why the GPU cannot be used, with the advice, when !usable
};

// The GPU backend as a run will find it (the CUDA plugin's probe, made once).
const CudaStatus& gpuBackendStatus();

// auto, cpu, each GPU; plus one unusable entry when the GPU backend cannot be used.
std::vector<DeviceChoice> deviceChoices();

// Bytes of memory the device named by `device` ("auto", "cpu", "cuda:1") has: host RAM for the
// CPU; 0 when unknown (a GPU that is not there).
uint64_t deviceMemoryBytes(const std::string& device);

} // namespace tb

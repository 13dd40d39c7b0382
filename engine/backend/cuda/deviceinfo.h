// What the plugin reports about the machine: driver, runtime, library versions and every GPU, as
// the JSON that tb::CudaStatus is read from (see backend/devices.h for the fields).
#pragma once

#include <nlohmann/json.hpp>

namespace tb::cuda {

// FP32 cores per SM for a compute capability (0 when unknown).
int coresPerSm(int major, int minor);

// Probes once per call; never throws (a failure is reported as usable=false with the reason).
nlohmann::json probeJson();

} // namespace tb::cuda

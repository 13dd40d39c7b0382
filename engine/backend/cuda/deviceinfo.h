// What the plugin reports about the machine: driver, runtime, library versions and every GPU, as
// the JSON that tb::CudaStatus is read from (see backend/devices.h for the fields).
#pragma once

#include <nlohmann/json.hpp>

namespace tb::cuda {

// FP32 cores per SM for a compute capability (0 when unknown).
int coresPerSm(int major, int minor);

// Whether a CUDA runtime of version `runtime` (cudaRuntimeGetVersion, e.g. 13010) runs on a
// driver that reports `driver` (cudaDriverGetVersion): CUDA's minor-version compatibility lets
// any 13.x runtime run on any CUDA 13 driver (release 580 or newer), so only the major versions
// are compared. 0 (no driver) never runs anything.
bool driverRunsRuntime(int driver, int runtime);

// Probes once per call; never throws (a failure is reported as usable=false with the reason).
// The context that proves the install works is created on `contextDevice` only (a rank of a
// data-parallel job passes its own GPU, so N ranks do not open N contexts on GPU 0); an index
// past the last GPU creates none.
nlohmann::json probeJson(int contextDevice);

} // namespace tb::cuda

// Choosing and creating a backend: the CPU one always, the CUDA plugin when it loads and finds a
// usable GPU. probeCuda() says exactly why the GPU cannot be used when it cannot.
#pragma once

#include "backend/backend.h"
#include "backend/devicecollectives.h"
#include "core/cudastatus.h"
#include "core/device.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tb {

// Loads the plugin once (thread-safe) and reports what it found; never throws. Without an
// NVIDIA driver it stops there and leaves the CUDA libraries unloaded. After a CUDA error that
// lost the context, it reports the GPU unusable (statusAfterContextLoss).
const CudaStatus& probeCuda();
// The same, but loads the plugin and its CUDA libraries even without a driver, and opens NCCL,
// so `doctor` can report their versions. Costs the libraries' memory; not for training
// processes.
const CudaStatus& probeCudaLibraries();

// The GPU whose context the probe creates to prove the install works (0 unless set). A rank of a
// data-parallel job sets its own before anything probes, so N ranks do not each open a context
// on GPU 0; set after the probe, it changes nothing.
void setCudaProbeDevice(int index);
int cudaProbeDevice();

// The status once a CUDA error (`error`: which, in which call) has lost this process's context
// on the GPU: unusable, saying why and that a restart is the remedy. probeCuda() returns this
// from then on.
CudaStatus statusAfterContextLoss(const CudaStatus& probed, const std::string& error);

// "auto" picks cuda:0 when probeCuda().usable, else the CPU. Throws ConfigError("device") for
// malformed text and BackendUnavailable for a CUDA device that cannot be used.
Device resolveDevice(const std::string& text);

// Creates the backend for a device; threads sizes the CPU compute pool (also used by the host
// side of a GPU run). Throws BackendUnavailable with the reason.
std::unique_ptr<Backend> createBackend(const Device& device, int threads);

// NCCL, from the CUDA plugin, for the GPU ranks of a data-parallel job: rank 0 makes the id, the
// job hands it to every rank, and each joins with its own backend (one the plugin created).
// Throw BackendUnavailable when the plugin cannot be used, DistributedError when NCCL fails or
// this plugin was built without it.
DeviceCollectivesId newDeviceCollectivesId();
std::unique_ptr<DeviceCollectives> createDeviceCollectives(Backend& backend,
                                                           const DeviceCollectivesId& id, int rank,
                                                           int size,
                                                           std::chrono::milliseconds timeout);

nlohmann::json toJson(const CudaStatus& status);

} // namespace tb

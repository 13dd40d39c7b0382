// The C entry points libtrainbench_cuda.so exports. Kept to plain C types so the engine can
// dlopen the plugin and check compatibility before trusting any C++ object from it.
#pragma once

#include <cstddef>

// Bumped whenever Backend's virtual functions or these entry points change (2:
// setDeterministic, eps in batchNormBackward; 3: setFlushDenormals, setMemoryFormat; 4: the
// NCCL collectives; 5: the probe's context device, NCCL opened on demand, a lost context,
// copyToDevice, AdamW's skipped steps; 6: setConvAlgorithm), so a plugin from an older build is
// refused instead of mis-called.
#define TB_CUDA_PLUGIN_ABI 6

namespace tb {
class Backend;
class DeviceCollectives;
} // namespace tb

extern "C" {
// Returns TB_CUDA_PLUGIN_ABI of the plugin's build.
int tb_cuda_plugin_abi();
// Writes a JSON object describing driver, runtime, cuDNN, cuBLAS and devices (the fields of
// tb::CudaStatus) into buf. Returns the length needed (call again with a bigger buf if larger).
// Probed once per process: the first call's contextDevice is the GPU whose context proves the
// install works (no other GPU gets a context from the probe).
std::size_t tb_cuda_probe_json(char* buf, std::size_t len, int contextDevice);
// NCCL's version, opening libnccl.so.2 if it is not yet open; 0 with the reason in why when it
// cannot be used (missing, too old, or a plugin built without nccl.h).
int tb_cuda_nccl_version(char* why, std::size_t whyLen);
// 1 with the error in buf when an earlier CUDA error lost this process's context on the GPU
// (every backend would fail: only a restart helps), else 0.
int tb_cuda_context_lost(char* buf, std::size_t len);
// Creates a backend on device `index`; on failure returns null and writes the reason to err.
tb::Backend* tb_cuda_create_backend(int index, char* err, std::size_t errLen);
// Writes a new NCCL unique id (tb::DeviceCollectivesId::kBytes) into id and returns 0; on
// failure (no NCCL in this build, NCCL failed) returns -1 and writes the reason to err.
int tb_cuda_collectives_id(char* id, char* err, std::size_t errLen);
// Joins the NCCL communicator of id as `rank` of `size` on the device and compute stream of
// `backend` (one this plugin created); on failure returns null and writes the reason to err.
tb::DeviceCollectives* tb_cuda_create_collectives(tb::Backend* backend, const char* id, int rank,
                                                  int size, int timeoutMs, char* err,
                                                  std::size_t errLen);
}

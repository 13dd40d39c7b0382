// The C entry points libtrainbench_cuda.so exports. Kept to plain C types so the engine can
// dlopen the plugin and check compatibility before trusting any C++ object from it.
#pragma once

#include <cstddef>

// Bumped whenever Backend's virtual functions change (2: setDeterministic, eps in
// batchNormBackward; 3: setFlushDenormals, setMemoryFormat), so a plugin from an older build is
// refused instead of mis-called.
#define TB_CUDA_PLUGIN_ABI 3

namespace tb {
class Backend;
}

extern "C" {
// Returns TB_CUDA_PLUGIN_ABI of the plugin's build.
int tb_cuda_plugin_abi();
// Writes a JSON object describing driver, runtime, cuDNN, cuBLAS and devices (the fields of
// tb::CudaStatus) into buf. Returns the length needed (call again with a bigger buf if larger).
std::size_t tb_cuda_probe_json(char* buf, std::size_t len);
// Creates a backend on device `index`; on failure returns null and writes the reason to err.
tb::Backend* tb_cuda_create_backend(int index, char* err, std::size_t errLen);
}

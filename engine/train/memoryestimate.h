// What training a model holds in device memory, known before the first step: the numbers behind
// "will batch N fit on this GPU?", for `summary`, the trainer's log and an out-of-memory error.
#pragma once

#include "core/dtype.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>

namespace tb {

class Backend;
class Graph;
struct OptimizerConfig;

struct MemoryEstimate {
    int64_t weights = 0;             // f32 parameters and buffers (BN running statistics)
    int64_t gradients = 0;           // f32 parameter gradients
    int64_t optimizerState = 0;      // SGD momentum, or AdamW's two moments
    int64_t activations = 0;         // layer outputs and what backward keeps (activation dtype)
    int64_t activationGradients = 0; // gradient buffers of one backward pass (activation dtype)

    int64_t total() const {
        return weights + gradients + optimizerState + activations + activationGradients;
    }
};

// The peak of one training step of `graph` at `batch` with this optimizer. Not included: library
// workspaces (cuDNN picks those per algorithm; cuBLAS takes a fixed 32 MiB on the GPU), and under
// mixed precision the transient 16-bit copy of one layer's weights and the GradScaler's few bytes.
MemoryEstimate estimateTrainingMemory(Graph& graph, int64_t batch,
                                      const OptimizerConfig& optimizer);

// The same for a model spec, built on a MetaBackend: nothing is allocated, so it is safe for a
// model too large for the machine. Throws ConfigError("model") for a bad spec, as Graph does.
MemoryEstimate estimateTrainingMemory(const nlohmann::json& spec, DType actDtype, int64_t batch,
                                      const OptimizerConfig& optimizer);

// Throws OutOfMemoryError (with the estimate, its parts and what is free) when `estimate`
// exceeds the free memory of `backend`'s device: host memory for the CPU backend. Does nothing
// when the device does not say how much it has.
void requireMemoryFits(const MemoryEstimate& estimate, int64_t batch, const Backend& backend);

} // namespace tb

// What training a model holds in device memory, known before the first step: the numbers behind
// "will batch N fit on this GPU?", for `summary`, the trainer's log and an out-of-memory error.
#pragma once

#include <cstdint>

namespace tb {

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

} // namespace tb

// estimateTrainingMemory: parameter counts and the graph's buffer plan times the batch size.
#include "train/memoryestimate.h"

#include "nn/graph.h"
#include "optim/optimizer.h"

namespace tb {

MemoryEstimate estimateTrainingMemory(Graph& graph, int64_t batch,
                                      const OptimizerConfig& optimizer) {
    MemoryEstimate e;
    for (const NamedTensor& t : graph.stateDict())
        e.weights += static_cast<int64_t>(t.tensor->bytes());
    const int64_t paramBytes = graph.parameterCount() * 4;
    e.gradients = paramBytes;
    if (optimizer.name == "adamw")
        e.optimizerState = 2 * paramBytes;
    else if (optimizer.momentum != 0.0f)
        e.optimizerState = paramBytes;
    for (const LayerRow& row : graph.summary(batch))
        e.activations += row.activationBytes;
    e.activationGradients = graph.gradientBufferBytes(batch);
    return e;
}

} // namespace tb

// estimateTrainingMemory: parameter counts and the graph's buffer plan times the batch size.
#include "train/memoryestimate.h"

#include "train/modelplan.h"

#include "core/errors.h"
#include "core/hostmemory.h"
#include "nn/graph.h"
#include "optim/optimizer.h"

namespace tb {

MemoryEstimate estimateTrainingMemory(Graph& graph, int64_t batch,
                                      const OptimizerConfig& optimizer) {
    MemoryEstimate e;
    for (const NamedTensor& t : graph.stateDict())
        e.weights += static_cast<int64_t>(t.tensor->bytes());
    const int64_t paramBytes = graph.trainableParameterCount() * 4; // frozen layers have none
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

MemoryEstimate estimateTrainingMemory(const nlohmann::json& spec, DType actDtype, int64_t batch,
                                      const OptimizerConfig& optimizer) {
    return ModelPlan(spec, actDtype).estimate(batch, optimizer);
}

void requireMemoryFits(const MemoryEstimate& estimate, int64_t batch, const Backend& backend) {
    uint64_t available = 0, total = 0;
    if (backend.device().isCuda()) {
        const MemoryStats stats = backend.memoryStats();
        available = stats.deviceFree;
        total = stats.deviceTotal;
    } else if (const auto host = hostMemory()) {
        available = host->available;
        total = host->total;
    }
    const auto need = static_cast<uint64_t>(estimate.total());
    if (total == 0 || need <= available)
        return;
    const auto part = [](const char* name, int64_t bytes) {
        return std::string(name) + " " + formatBytes(static_cast<uint64_t>(bytes));
    };
    throw OutOfMemoryError::estimated(
        backend.device().toString(), need,
        "this run needs about " + formatBytes(need) + " at batch_size " + std::to_string(batch) +
            " (" + part("weights", estimate.weights) + ", " +
            part("gradients", estimate.gradients) + ", " +
            part("optimizer state", estimate.optimizerState) + ", " +
            part("activations", estimate.activations) + ", " +
            part("activation gradients", estimate.activationGradients) + ")",
        available, total,
        "Lower batch_size (with accumulate_grad_batches to keep the effective batch), use "
        "precision=16-mixed, or choose a smaller model.");
}

} // namespace tb

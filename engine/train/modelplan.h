// ModelPlan: a model built for its samples on a MetaBackend (shapes, no memory), for what can be
// known before training: the layer table and the training-memory estimate at any batch. Used by
// `summary`, the trainer's memory check and the window's model panel; safe for a model far too
// large for the machine.
#pragma once

#include "core/dtype.h"
#include "core/shape.h"
#include "nn/graph.h"
#include "train/memoryestimate.h"

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <vector>

namespace tb {

class MetaBackend;
struct OptimizerConfig;

class ModelPlan {
public:
    // Builds `spec` (modelSpec()'s output) with activations in actDtype. Throws ConfigError
    // ("model") for a bad spec, as Graph does.
    ModelPlan(const nlohmann::json& spec, DType actDtype);
    ~ModelPlan();
    ModelPlan(const ModelPlan&) = delete;
    ModelPlan& operator=(const ModelPlan&) = delete;

    // The sample shape the model takes, without the batch dimension.
    const Shape& inputShape() const;
    // One row per layer at `batch` (output shape, parameters, FLOPs, activation bytes).
    std::vector<LayerRow> layers(int64_t batch) const;
    MemoryEstimate estimate(int64_t batch, const OptimizerConfig& optimizer) const;

private:
    std::unique_ptr<MetaBackend> m_backend;
    std::unique_ptr<Graph> m_graph; // built on m_backend
};

} // namespace tb

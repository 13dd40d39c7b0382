// ModelPlan: a Graph on a MetaBackend.
#include "train/modelplan.h"

#include "backend/metabackend.h"

namespace tb {

ModelPlan::ModelPlan(const nlohmann::json& spec, DType actDtype)
    : m_backend(std::make_unique<MetaBackend>()),
      m_graph(std::make_unique<Graph>(spec, *m_backend, actDtype, 0)) {}

ModelPlan::~ModelPlan() = default;

const Shape& ModelPlan::inputShape() const {
    return m_graph->inputShape();
}

std::vector<LayerRow> ModelPlan::layers(int64_t batch) const {
    return m_graph->summary(batch);
}

MemoryEstimate ModelPlan::estimate(int64_t batch, const OptimizerConfig& optimizer) const {
    return estimateTrainingMemory(*m_graph, batch, optimizer);
}

} // namespace tb

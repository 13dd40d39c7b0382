// SGD (momentum, Nesterov, weight decay) and AdamW over a graph's parameters, with fused
// per-parameter updates on the backend. State tensors are exposed for checkpoints.
#pragma once

#include "backend/backend.h"
#include "nn/layer.h"

#include <string>
#include <vector>

namespace tb {

struct OptimizerConfig {
    std::string name = "sgd"; // sgd | adamw
    float momentum = 0.9f;
    bool nesterov = false;
    float weightDecay = 0.0f;
    float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
};

class Optimizer {
public:
    Optimizer(Backend& backend, std::vector<Param*> params, const OptimizerConfig& config);

    // One update with learning rate lr. Gradients are divided by scaleState[0] when given, and
    // the update is skipped when foundInf[0] != 0 (both device scalars; no host sync).
    void step(float lr, const Tensor* scaleState, const Tensor* foundInf);
    // Update calls so far (AdamW's bias-correction step). A step the GradScaler skips on the
    // device still counts, since the host does not wait to learn about it.
    int64_t steps() const { return m_steps; }
    void setSteps(int64_t steps) { m_steps = steps; }
    // Named state tensors: "<index>.momentum_buffer", "<index>.exp_avg", "<index>.exp_avg_sq".
    std::vector<std::pair<std::string, Tensor*>> state();

private:
    Backend& m_backend;
    std::vector<Param*> m_params;
    OptimizerConfig m_config;
    std::vector<Tensor> m_buf1, m_buf2;
    int64_t m_steps = 0;
};

} // namespace tb

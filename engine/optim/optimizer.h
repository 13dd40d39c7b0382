// SGD (momentum, Nesterov, weight decay) and AdamW over a graph's parameters, with fused
// per-parameter updates on the backend, in parameter groups that scale the learning rate (as
// PyTorch's param_groups do for fine-tuning). State tensors are exposed for checkpoints.
#pragma once

#include "backend/backend.h"
#include "nn/layer.h"
#include "nn/steptimeline.h"

#include <string>
#include <vector>

namespace tb {

struct OptimizerConfig {
    std::string name = "sgd"; // sgd | adamw
    float momentum = 0.9f;
    bool nesterov = false;
    float weightDecay = 0.0f;
    float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
    // Ultralytics' warm-up (warmup_bias_lr, warmup_momentum): while the rate warms up from 0,
    // the biases' rate falls from warmupBiasLr to it and SGD's momentum rises from
    // warmupMomentum to `momentum`. 0 leaves the biases with the others' rate and the momentum
    // at `momentum` throughout.
    float warmupBiasLr = 0.0f;
    float warmupMomentum = 0.0f;
};

// Parameters that share a learning rate: lr(step) * lrMult.
struct ParamGroup {
    std::string name; // "body", "head"
    std::vector<Param*> params;
    float lrMult = 1.0f;
};

class Optimizer {
public:
    // One group of every parameter at the schedule's rate.
    Optimizer(Backend& backend, std::vector<Param*> params, const OptimizerConfig& config);
    Optimizer(Backend& backend, std::vector<ParamGroup> groups, const OptimizerConfig& config);

    // One update with learning rate lr. Gradients are divided by scaleState[0] when given, and
    // the update is skipped when foundInf[0] != 0 (both device scalars; no host sync). A skipped
    // update does not count as a step, as with PyTorch's GradScaler, which does not call
    // optimizer.step() then: the count of skipped ones stays on the device for AdamW's bias
    // correction. warmupLeft is the share of the warm-up still ahead (1 - the schedule's
    // warmupFraction), for the config's warm-up of the biases' rate and the momentum.
    void step(float lr, const Tensor* scaleState, const Tensor* foundInf, float warmupLeft = 0.0f);
    // What the update at warmupLeft uses for a bias's rate and for SGD's momentum.
    float biasLr(float lr, float warmupLeft) const;
    float momentum(float warmupLeft) const;
    const std::vector<ParamGroup>& groups() const { return m_groups; }
    // A profile's timeline (null: none): a span is marked after each group's updates, named
    // by spanName().
    void setTimeline(StepTimeline* timeline) { m_timeline = timeline; }
    // "optimizer" for a single group, "optimizer: <group>" for each of several.
    std::string spanName(std::size_t group) const;
    // Updates applied so far (PyTorch's state["step"]). Reads the device's count of skipped
    // steps, so it waits for the device: for checkpoints, not for every step.
    int64_t steps();
    void setSteps(int64_t steps);
    // Named state tensors: "<index>.momentum_buffer", "<index>.exp_avg", "<index>.exp_avg_sq".
    std::vector<std::pair<std::string, Tensor*>> state();

private:
    Backend& m_backend;
    std::vector<ParamGroup> m_groups;
    std::vector<Param*> m_params; // the groups' parameters in order (state index i is m_params[i])
    std::vector<float> m_lrMult;  // per parameter
    std::vector<std::size_t> m_groupEnd; // per group: one past its last index in m_params
    StepTimeline* m_timeline = nullptr;
    OptimizerConfig m_config;
    std::vector<Tensor> m_buf1, m_buf2;
    int64_t m_calls = 0;  // step() calls, skipped ones included
    Tensor m_skipped;     // f32 scalar on the device: calls the GradScaler skipped
    Tensor m_skippedHost; // its read-back
};

} // namespace tb

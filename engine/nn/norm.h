// BatchNorm2d: batch statistics in training, running statistics (momentum 0.1) in evaluation;
// in a data-parallel job, optionally the statistics of the whole job's batch (SyncBatchNorm).
#pragma once

#include "nn/layer.h"

#include <functional>
#include <vector>

namespace tb {

// The ranks of a data-parallel job as SyncBatchNorm needs them: who this rank is and a sum of
// a few values over every rank (a collective: every rank calls it, in the same order).
struct RankGroup {
    int rank = 0;
    int size = 1;
    std::function<void(std::vector<double>&)> sum;
};

class BatchNorm2d final : public Layer {
public:
    explicit BatchNorm2d(const nlohmann::json& spec);
    std::string type() const override { return "batchnorm2d"; }
    Shape outputShape(const std::vector<Shape>& in) const override { return in[0]; }
    void init(Backend& b, const std::vector<Shape>& in, uint64_t seed) override;
    std::vector<Param*> params() override { return {&m_gamma, &m_beta}; }
    std::vector<StateBuffer> buffers() override;
    int64_t flops(const std::vector<Shape>& in) const override { return 4 * in[0].numel(); }
    nlohmann::json options() const override;
    bool canFuseRelu() const override { return true; }
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;

    // From now on, training normalises with the mean and variance of every rank's batch
    // together, and backward accounts for them (PyTorch's SyncBatchNorm); an empty group
    // (size 1) goes back to this rank's batch alone.
    void synchronise(RankGroup group);

private:
    void forwardSynchronised(Backend& b, const Tensor& x, Tensor& out);
    void backwardSynchronised(Backend& b, const Tensor& x, const Tensor& out, const Tensor& dout,
                              Tensor& dx);

    float m_momentum, m_eps;
    Param m_gamma{"weight", {}, {}, false};
    Param m_beta{"bias", {}, {}, false};
    Tensor m_runningMean, m_runningVar, m_saveMean, m_saveInvStd;
    Tensor m_unusedInputGrad;
    // SyncBatchNorm: the group, the job's biased variance of the last forward (its mean is
    // m_saveMean), per-channel scratch, and the values counted by the last forward.
    RankGroup m_group;
    Tensor m_jobVar, m_channelA, m_channelB, m_correction;
    double m_localCount = 0.0, m_jobCount = 0.0;
};

} // namespace tb

// BatchNorm2d: batch statistics in training, running statistics (momentum 0.1) in evaluation.
#pragma once

#include "nn/layer.h"

namespace tb {

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

private:
    float m_momentum, m_eps;
    Param m_gamma{"weight", {}, {}, false};
    Param m_beta{"bias", {}, {}, false};
    Tensor m_runningMean, m_runningVar, m_saveMean, m_saveInvStd;
    Tensor m_unusedInputGrad;
};

} // namespace tb

// Pointwise activations: ReLU, LeakyReLU (negative_slope), ReLU6, SiLU and GELU (exact, or its
// tanh form with "approximate": "tanh", as PyTorch's nn.GELU names it).
#pragma once

#include "nn/layer.h"

namespace tb {

class ActivationLayer final : public Layer {
public:
    ActivationLayer(Activation kind, const nlohmann::json& spec);
    Activation kind() const { return m_kind; }
    std::string type() const override;
    Shape outputShape(const std::vector<Shape>& in) const override { return in[0]; }
    int64_t flops(const std::vector<Shape>& in) const override { return in[0].numel(); }
    nlohmann::json options() const override;
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;

private:
    Activation m_kind;
    float m_alpha;
};

} // namespace tb

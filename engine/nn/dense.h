// Linear (fully connected) layer: y = x W^T + b over the flattened features of x, or over the
// last dimension of a sequence (n, t, features), as PyTorch's nn.Linear. "tie_weight" names an
// earlier embedding whose table it uses as its weight (a GPT's output projection).
#pragma once

#include "nn/layer.h"

namespace tb {

class Linear final : public Layer {
public:
    explicit Linear(const nlohmann::json& spec);
    std::string type() const override { return "linear"; }
    Shape outputShape(const std::vector<Shape>& in) const override;
    void init(Backend& b, const std::vector<Shape>& in, uint64_t seed) override;
    std::vector<Param*> params() override;
    int64_t flops(const std::vector<Shape>& in) const override;
    nlohmann::json options() const override;
    std::string tiedTo() const override { return m_tiedTo; }
    void tie(Param& weight) override { m_tied = &weight; }
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;

private:
    const Param& weight() const { return m_tied ? *m_tied : m_weight; }

    int64_t m_outFeatures;
    bool m_hasBias;
    float m_initStd; // 0: PyTorch's default uniform; else normal weights and zero bias
    std::string m_tiedTo;
    Param* m_tied = nullptr;
    Param m_weight{"weight", {}, {}, true};
    Param m_bias{"bias", {}, {}, false};
};

} // namespace tb

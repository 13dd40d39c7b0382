// Linear (fully connected) layer: y = x W^T + b over the flattened features of x.
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
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;

private:
    int64_t m_outFeatures;
    bool m_hasBias;
    Param m_weight{"weight", {}, {}, true};
    Param m_bias{"bias", {}, {}, false};
};

} // namespace tb

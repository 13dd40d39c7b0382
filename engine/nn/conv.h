// Conv2d: square kernel, stride, zero padding, dilation (taps that far apart: a wider view at
// the same resolution, as DeepLab's atrous convolutions), groups (depthwise when groups equals
// the input channels), optional bias.
#pragma once

#include "nn/layer.h"

#include <optional>

namespace tb {

class Conv2d final : public Layer {
public:
    explicit Conv2d(const nlohmann::json& spec);
    std::string type() const override { return "conv2d"; }
    Shape outputShape(const std::vector<Shape>& in) const override;
    void init(Backend& b, const std::vector<Shape>& in, uint64_t seed) override;
    std::vector<Param*> params() override;
    int64_t flops(const std::vector<Shape>& in) const override;
    nlohmann::json options() const override;
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;

private:
    ConvDesc describe(const Shape& x) const;

    int64_t m_outChannels, m_kernel, m_stride, m_padding, m_groups, m_dilation;
    bool m_hasBias;
    std::optional<float> m_biasInit; // a constant bias at init instead of PyTorch's uniform
    Param m_weight{"weight", {}, {}, true};
    Param m_bias{"bias", {}, {}, false};
};

} // namespace tb

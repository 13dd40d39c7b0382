// MaxPool2d, AvgPool2d and GlobalAvgPool (average over the whole plane, output N x C x 1 x 1).
#pragma once

#include "nn/layer.h"

namespace tb {

class Pool2d final : public Layer {
public:
    // global: kernel = the input's H x W.
    Pool2d(PoolKind kind, bool global, const nlohmann::json& spec);
    std::string type() const override;
    Shape outputShape(const std::vector<Shape>& in) const override;
    int64_t flops(const std::vector<Shape>& in) const override { return in[0].numel(); }
    int64_t savedBytes(const std::vector<Shape>& in) const override;
    nlohmann::json options() const override;
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;

private:
    PoolDesc describe(const Shape& x) const;

    PoolKind m_kind;
    bool m_global;
    int64_t m_kernel, m_stride, m_padding;
    Tensor m_indices;
};

} // namespace tb

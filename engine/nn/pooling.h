// MaxPool2d, AvgPool2d, GlobalAvgPool (average over the whole plane, output N x C x 1 x 1) and
// AdaptiveAvgPool2d (a fixed output size from any input, torchvision's VGG head).
#pragma once

#include "nn/layer.h"

namespace tb {

// Window: a kernel sliding at a stride; Global: kernel = the input's H x W; Adaptive: the
// "output_size" option's H x W from whatever input comes (average pooling only).
enum class PoolExtent { Window, Global, Adaptive };

class Pool2d final : public Layer {
public:
    Pool2d(PoolKind kind, PoolExtent extent, const nlohmann::json& spec);
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
    PoolExtent m_extent;
    int64_t m_kernel, m_stride, m_padding;
    int64_t m_outH = 0, m_outW = 0; // Adaptive's output size
    Tensor m_indices;
};

} // namespace tb

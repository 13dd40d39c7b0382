// Resize: bilinear resizing of feature maps to a fixed size or by a factor, as PyTorch's
// F.interpolate(mode="bilinear", align_corners=False), which FCN and DeepLab use to bring
// stride-8 logits back to the image and U-Net to climb its decoder.
#pragma once

#include "nn/layer.h"

namespace tb {

class Resize final : public Layer {
public:
    explicit Resize(const nlohmann::json& spec);
    std::string type() const override { return "resize"; }
    Shape outputShape(const std::vector<Shape>& in) const override;
    // Six multiplies and three adds an output value (two taps along each axis).
    int64_t flops(const std::vector<Shape>& in) const override {
        return 9 * outputShape(in).numel();
    }
    nlohmann::json options() const override;
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;

private:
    int64_t m_height = 0, m_width = 0; // "size", or 0 when scale_factor gives it
    float m_scale = 0.0f;
};

} // namespace tb

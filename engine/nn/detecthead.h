// The output of an anchor-free detection head (YOLOv8's Detect): each scale's map
// (N, 4 reg_max + classes, H_i, W_i) flattened and joined into (N, 4 reg_max + classes, A), one
// column per anchor point (A = sum of H_i W_i, scales in order, each row-major), as Ultralytics'
// Detect.forward returns them in training. The first 4 reg_max rows are the box distribution
// (left, top, right, bottom distances, reg_max bins each, in units of the scale's stride), the
// rest the class logits. It owns the DFL's fixed projection (bin i weighs i), saved as the
// buffer "dfl.conv.weight" so a state dict matches Ultralytics'.
#pragma once

#include "nn/layer.h"

namespace tb {

class DetectOutput final : public Layer {
public:
    explicit DetectOutput(const nlohmann::json& spec);
    std::string type() const override { return "detect_output"; }
    int inputCount() const override { return static_cast<int>(m_strides.size()); }
    Shape outputShape(const std::vector<Shape>& in) const override;
    nlohmann::json options() const override;
    void init(Backend& b, const std::vector<Shape>& in, uint64_t seed) override;
    std::vector<StateBuffer> buffers() override { return {{"dfl.conv.weight", &m_dfl}}; }
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;

    int64_t regMax() const { return m_regMax; }
    int64_t classes() const { return m_classes; }
    // Pixels per map cell of each scale, in the order of the inputs (8, 16, 32 for YOLOv8).
    const std::vector<int64_t>& strides() const { return m_strides; }

private:
    int64_t m_regMax;
    int64_t m_classes;
    std::vector<int64_t> m_strides;
    Tensor m_dfl;
    std::vector<Tensor> m_flat; // each scale's values (or gradient), plain (N * rows, H_i W_i)
};

} // namespace tb

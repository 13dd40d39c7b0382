// Layers that move or combine data without parameters: Flatten, Dropout, Add (residual) and the
// ResNet option-A shortcut.
#pragma once

#include "nn/layer.h"

namespace tb {

class Flatten final : public Layer {
public:
    std::string type() const override { return "flatten"; }
    Shape outputShape(const std::vector<Shape>& in) const override;
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;
};

class Dropout final : public Layer {
public:
    explicit Dropout(const nlohmann::json& spec);
    std::string type() const override { return "dropout"; }
    Shape outputShape(const std::vector<Shape>& in) const override { return in[0]; }
    int64_t savedBytes(const std::vector<Shape>& in) const override { return in[0].numel(); }
    nlohmann::json options() const override { return {{"p", m_p}}; }
    // The mask of each forward pass is drawn from this seed and a pass counter.
    void init(Backend& b, const std::vector<Shape>& in, uint64_t seed) override;
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;
    bool drawsMasks() const override { return true; }
    uint64_t passes() const override { return m_passes; }
    void setPasses(uint64_t passes) override { m_passes = passes; }

private:
    float m_p;
    uint64_t m_seed = 0;
    uint64_t m_passes = 0;
    bool m_lastTraining = false;
    Tensor m_mask;
};

class Add final : public Layer {
public:
    std::string type() const override { return "add"; }
    int inputCount() const override { return 2; }
    Shape outputShape(const std::vector<Shape>& in) const override;
    int64_t flops(const std::vector<Shape>& in) const override { return in[0].numel(); }
    bool canFuseRelu() const override { return true; }
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;
};

// He et al. 2016, sec. 4.2 option A: subsample by `stride` and zero-pad the channels up to
// out_channels. Parameter-free.
class ShortcutPad final : public Layer {
public:
    explicit ShortcutPad(const nlohmann::json& spec);
    std::string type() const override { return "shortcut_pad"; }
    Shape outputShape(const std::vector<Shape>& in) const override;
    nlohmann::json options() const override;
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;

private:
    int64_t m_outChannels, m_stride;
};

} // namespace tb

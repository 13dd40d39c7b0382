// Layers that move or combine data without parameters: Flatten, Dropout, Add (residual), the
// ResNet option-A shortcut, and a detector neck's Concat (along channels), ChannelSlice and
// Upsample.
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

// Joins two or more (N, C_i, H, W) inputs into (N, sum C_i, H, W), in the order the spec's
// "inputs" lists them (Ultralytics' Concat along dimension 1).
class Concat final : public Layer {
public:
    explicit Concat(const nlohmann::json& spec);
    std::string type() const override { return "concat"; }
    int inputCount() const override { return m_inputs; }
    Shape outputShape(const std::vector<Shape>& in) const override;
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;

private:
    int m_inputs;
};

// Channels [begin, end) of an (N, C, H, W) input: one of YOLOv8's C2f halves (its chunk(2, 1)).
class ChannelSlice final : public Layer {
public:
    explicit ChannelSlice(const nlohmann::json& spec);
    std::string type() const override { return "channel_slice"; }
    Shape outputShape(const std::vector<Shape>& in) const override;
    nlohmann::json options() const override { return {{"begin", m_begin}, {"end", m_end}}; }
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;

private:
    int64_t m_begin, m_end;
    Tensor m_zerosBefore, m_zerosAfter; // the gradient of the channels left out
};

// Nearest-neighbour upsampling by a whole scale_factor (PyTorch's nn.Upsample, mode "nearest").
class Upsample final : public Layer {
public:
    explicit Upsample(const nlohmann::json& spec);
    std::string type() const override { return "upsample"; }
    Shape outputShape(const std::vector<Shape>& in) const override;
    nlohmann::json options() const override;
    void forward(Backend& b, const Inputs& in, Tensor& out, bool training) override;
    void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                  const std::vector<Tensor*>& din) override;

private:
    int64_t m_scale;
};

} // namespace tb

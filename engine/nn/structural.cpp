// Flatten, Dropout, Add, the option-A shortcut, Concat, ChannelSlice and Upsample.
#include "nn/structural.h"

#include "nn/layerutil.h"

#include <utility>

namespace tb {

Shape Flatten::outputShape(const std::vector<Shape>& in) const {
    return Shape{in[0][0], in[0].numel() / in[0][0]};
}

void Flatten::forward(Backend& b, const Inputs& in, Tensor& out, bool) {
    b.copy(*in[0], out); // a reshaping copy: a backend hands out plain values
}

void Flatten::backward(Backend& b, const Inputs& in, const Tensor&, const Tensor& dout,
                       const std::vector<Tensor*>& din) {
    (void)in;
    if (!din[0])
        return; // the graph input needs no gradient
    b.copy(dout, *din[0]);
}

Dropout::Dropout(const nlohmann::json& spec)
    : m_p(floatOption(spec, "p", 0.5f, {0.0, 1.0, false, /*maxOpen=*/true})) {}

void Dropout::init(Backend&, const std::vector<Shape>&, uint64_t seed) {
    m_seed = seed;
}

void Dropout::forward(Backend& b, const Inputs& in, Tensor& out, bool training) {
    m_lastTraining = training && m_p > 0.0f;
    if (!m_lastTraining) {
        b.copy(*in[0], out);
        return;
    }
    ensureTensor(b, m_mask, in[0]->shape(), DType::U8);
    b.dropoutForward(*in[0], m_p, m_seed + 0x9e37ull * ++m_passes, out, m_mask);
}

void Dropout::backward(Backend& b, const Inputs&, const Tensor&, const Tensor& dout,
                       const std::vector<Tensor*>& din) {
    if (m_lastTraining)
        b.dropoutBackward(dout, m_mask, m_p, *din[0]);
    else
        b.copy(dout, *din[0]);
}

Shape Add::outputShape(const std::vector<Shape>& in) const {
    if (!(in[0] == in[1]))
        layerError(name(), "adds tensors of different shapes " + in[0].toString() + " and " +
                               in[1].toString());
    return in[0];
}

void Add::forward(Backend& b, const Inputs& in, Tensor& out, bool) {
    if (fusedRelu())
        b.addRelu(*in[0], *in[1], out);
    else
        b.add(*in[0], *in[1], out);
}

void Add::backward(Backend& b, const Inputs&, const Tensor& out, const Tensor& dout,
                   const std::vector<Tensor*>& din) {
    for (Tensor* d : din) {
        if (!d)
            continue;
        if (fusedRelu()) // the fused ReLU's mask, taken from our output, as we hand dout on
            b.activationBackward(Activation::ReLU, 0.0f, out, dout, *d);
        else
            b.copy(dout, *d);
    }
}

ShortcutPad::ShortcutPad(const nlohmann::json& spec)
    : m_outChannels(intOption(spec, "out_channels", 0)),
      m_stride(intOption(spec, "stride", 2, 1, kMaxKernel)) {}

Shape ShortcutPad::outputShape(const std::vector<Shape>& in) const {
    const int64_t extra = m_outChannels - in[0][1];
    if (in[0].rank() != 4 || extra < 0 || extra % 2 != 0)
        layerError(name(), "needs (N, C, H, W) input and out_channels = C + an even number");
    return Shape{in[0][0], m_outChannels, (in[0][2] + m_stride - 1) / m_stride,
                 (in[0][3] + m_stride - 1) / m_stride};
}

nlohmann::json ShortcutPad::options() const {
    return {{"out_channels", m_outChannels}, {"stride", m_stride}};
}

void ShortcutPad::forward(Backend& b, const Inputs& in, Tensor& out, bool) {
    b.shortcutPadForward(*in[0], m_stride, (m_outChannels - in[0]->dim(1)) / 2, out);
}

void ShortcutPad::backward(Backend& b, const Inputs& in, const Tensor&, const Tensor& dout,
                           const std::vector<Tensor*>& din) {
    b.shortcutPadBackward(dout, m_stride, (m_outChannels - in[0]->dim(1)) / 2, *din[0]);
}

Concat::Concat(const nlohmann::json& spec) {
    const auto it = spec.find("inputs");
    if (it == spec.end() || !it->is_array() || it->size() < 2)
        layerError(layerLabel(spec), "concat joins two or more \"inputs\" (layer names)");
    m_inputs = static_cast<int>(it->size());
}

Shape Concat::outputShape(const std::vector<Shape>& in) const {
    int64_t channels = 0;
    for (const Shape& s : in) {
        if (s.rank() != 4 || s[0] != in[0][0] || s[2] != in[0][2] || s[3] != in[0][3])
            layerError(name(), "joins (N, C, H, W) inputs of equal N, H and W, not " +
                                   in[0].toString() + " and " + s.toString());
        channels += s[1];
    }
    return Shape{in[0][0], channels, in[0][2], in[0][3]};
}

void Concat::forward(Backend& b, const Inputs& in, Tensor& out, bool) {
    b.joinChannels(in, out);
}

void Concat::backward(Backend& b, const Inputs& in, const Tensor&, const Tensor& dout,
                      const std::vector<Tensor*>& din) {
    std::vector<int64_t> channels;
    for (const Tensor* x : in)
        channels.push_back(x->dim(1));
    b.splitChannels(dout, din, channels);
}

ChannelSlice::ChannelSlice(const nlohmann::json& spec)
    : m_begin(intOption(spec, "begin", 0, 0)), m_end(intOption(spec, "end", 0)) {
    if (m_end <= m_begin)
        layerError(layerLabel(spec), "needs channels begin < end, got " + std::to_string(m_begin) +
                                         ".." + std::to_string(m_end));
}

Shape ChannelSlice::outputShape(const std::vector<Shape>& in) const {
    if (in[0].rank() != 4 || m_end > in[0][1])
        layerError(name(), "takes channels " + std::to_string(m_begin) + ".." +
                               std::to_string(m_end) + " of (N, C, H, W) input, got " +
                               in[0].toString());
    return Shape{in[0][0], m_end - m_begin, in[0][2], in[0][3]};
}

void ChannelSlice::forward(Backend& b, const Inputs& in, Tensor& out, bool) {
    const int64_t c = in[0]->dim(1);
    b.splitChannels(*in[0], {nullptr, &out, nullptr}, {m_begin, m_end - m_begin, c - m_end});
}

void ChannelSlice::backward(Backend& b, const Inputs& in, const Tensor&, const Tensor& dout,
                            const std::vector<Tensor*>& din) {
    if (!din[0])
        return;
    const Tensor& x = *in[0];
    std::vector<const Tensor*> parts;
    for (auto [zeros, channels] :
         {std::pair{&m_zerosBefore, m_begin}, std::pair{&m_zerosAfter, x.dim(1) - m_end}}) {
        if (channels == 0)
            continue;
        ensureTensor(b, *zeros, {x.dim(0), channels, x.dim(2), x.dim(3)}, dout.dtype());
        b.fill(*zeros, 0.0f);
    }
    if (m_begin > 0)
        parts.push_back(&m_zerosBefore);
    parts.push_back(&dout);
    if (m_end < x.dim(1))
        parts.push_back(&m_zerosAfter);
    b.joinChannels(parts, *din[0]);
}

Upsample::Upsample(const nlohmann::json& spec)
    : m_scale(intOption(spec, "scale_factor", 2, 1, 16)) {
    if (const auto mode = spec.find("mode");
        mode != spec.end() && !(mode->is_string() && *mode == "nearest"))
        layerError(layerLabel(spec), "mode must be \"nearest\", not " + mode->dump());
}

Shape Upsample::outputShape(const std::vector<Shape>& in) const {
    if (in[0].rank() != 4)
        layerError(name(), "needs (N, C, H, W) input, not " + in[0].toString());
    return Shape{in[0][0], in[0][1], in[0][2] * m_scale, in[0][3] * m_scale};
}

nlohmann::json Upsample::options() const {
    return {{"scale_factor", m_scale}, {"mode", "nearest"}};
}

void Upsample::forward(Backend& b, const Inputs& in, Tensor& out, bool) {
    b.upsampleNearestForward(*in[0], m_scale, out);
}

void Upsample::backward(Backend& b, const Inputs&, const Tensor&, const Tensor& dout,
                        const std::vector<Tensor*>& din) {
    if (din[0])
        b.upsampleNearestBackward(dout, m_scale, *din[0]);
}

} // namespace tb

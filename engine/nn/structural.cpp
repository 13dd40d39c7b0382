// Flatten, Dropout, Add and the option-A shortcut.
#include "nn/structural.h"

#include "nn/layerutil.h"

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

} // namespace tb

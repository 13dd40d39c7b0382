// Conv2d layer.
#include "nn/conv.h"

#include "nn/layerutil.h"

#include <cmath>

namespace tb {

Conv2d::Conv2d(const nlohmann::json& spec)
    : m_outChannels(intOption(spec, "out_channels", 0)),
      m_kernel(intOption(spec, "kernel", 3, 1, kMaxKernel)),
      m_stride(intOption(spec, "stride", 1, 1, kMaxKernel)),
      m_padding(intOption(spec, "padding", 0, 0, kMaxKernel)),
      m_groups(intOption(spec, "groups", 1)),
      m_dilation(intOption(spec, "dilation", 1, 1, kMaxKernel)),
      m_hasBias(boolOption(spec, "bias", true)) {
    if (m_outChannels <= 0)
        layerError(layerLabel(spec), "needs out_channels");
    if (spec.contains("bias_init")) {
        if (!m_hasBias)
            layerError(layerLabel(spec), "bias_init needs a bias");
        m_biasInit = floatOption(spec, "bias_init", 0.0f, {-100.0, 100.0});
    }
}

ConvDesc Conv2d::describe(const Shape& x) const {
    ConvDesc d;
    d.n = x[0];
    d.c = x[1];
    d.h = x[2];
    d.w = x[3];
    d.k = m_outChannels;
    d.r = d.s = m_kernel;
    d.stride = m_stride;
    d.pad = m_padding;
    d.groups = m_groups;
    d.dilation = m_dilation;
    return d;
}

Shape Conv2d::outputShape(const std::vector<Shape>& in) const {
    if (in[0].rank() != 4)
        layerError(name(), "expects (N, C, H, W) input, got " + in[0].toString());
    const ConvDesc d = describe(in[0]);
    if (d.c % m_groups != 0 || d.k % m_groups != 0)
        layerError(name(), "groups " + std::to_string(m_groups) + " must divide both its " +
                               std::to_string(d.c) + " input and " + std::to_string(d.k) +
                               " output channels");
    if (d.outH() < 1 || d.outW() < 1)
        layerError(name(), "kernel " + std::to_string(m_kernel) +
                               (m_dilation > 1 ? " at dilation " + std::to_string(m_dilation)
                                               : std::string()) +
                               " does not fit input " + in[0].dropBatch().toString());
    return Shape{d.n, d.k, d.outH(), d.outW()};
}

void Conv2d::init(Backend& b, const std::vector<Shape>& in, uint64_t seed) {
    const int64_t c = in[0][1] / m_groups; // input channels each output channel sees
    const Shape ws{m_outChannels, c, m_kernel, m_kernel};
    const float bound = 1.0f / std::sqrt(static_cast<float>(c * m_kernel * m_kernel));
    m_weight.value = b.empty(ws, DType::F32);
    m_weight.grad = b.empty(ws, DType::F32);
    uniformInit(b, m_weight.value, bound, seed);
    if (m_hasBias) {
        m_bias.value = b.empty({m_outChannels}, DType::F32);
        m_bias.grad = b.empty({m_outChannels}, DType::F32);
        if (m_biasInit)
            b.fill(m_bias.value, *m_biasInit);
        else
            uniformInit(b, m_bias.value, bound, seed ^ 0xb1a5ull);
    }
}

std::vector<Param*> Conv2d::params() {
    if (m_hasBias)
        return {&m_weight, &m_bias};
    return {&m_weight};
}

int64_t Conv2d::flops(const std::vector<Shape>& in) const {
    const ConvDesc d = describe(in[0]);
    return 2 * d.n * d.k * d.outH() * d.outW() * (d.c / d.groups) * d.r * d.s;
}

nlohmann::json Conv2d::options() const {
    nlohmann::json o = {{"out_channels", m_outChannels},
                        {"kernel", m_kernel},
                        {"stride", m_stride},
                        {"padding", m_padding},
                        {"bias", m_hasBias}};
    if (m_groups != 1)
        o["groups"] = m_groups;
    if (m_dilation != 1)
        o["dilation"] = m_dilation;
    if (m_biasInit)
        o["bias_init"] = *m_biasInit;
    return o;
}

void Conv2d::forward(Backend& b, const Inputs& in, Tensor& out, bool) {
    b.convForward(describe(in[0]->shape()), *in[0], m_weight.value,
                  m_hasBias ? &m_bias.value : nullptr, out);
}

void Conv2d::backward(Backend& b, const Inputs& in, const Tensor&, const Tensor& dout,
                      const std::vector<Tensor*>& din) {
    b.convBackward(describe(in[0]->shape()), *in[0], m_weight.value, dout, din[0], m_weight.grad,
                   m_hasBias ? &m_bias.grad : nullptr);
}

} // namespace tb

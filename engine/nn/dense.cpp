// Linear layer.
#include "nn/dense.h"

#include "nn/layerutil.h"

#include <cmath>

namespace tb {

namespace {

// A sequence (n, t, features) maps its last dimension; anything else is flattened per sample.
bool isSequence(const Shape& s) {
    return s.rank() == 3;
}

int64_t fanInOf(const Shape& s) {
    return isSequence(s) ? s[2] : s.numel() / s[0];
}

// A sequence as the (n * t, features) matrix the matmul sees; anything else as it is (the
// backend flattens it, and knows the layout it may be kept in).
Tensor asRows(const Tensor& t, int64_t features) {
    return isSequence(t.shape()) ? t.view({t.numel() / features, features}) : t;
}

} // namespace

Linear::Linear(const nlohmann::json& spec)
    : m_outFeatures(intOption(spec, "out_features", 0)), m_hasBias(boolOption(spec, "bias", true)),
      m_initStd(floatOption(spec, "init_std", 0.0f, {0.0, 10.0})) {
    if (m_outFeatures <= 0)
        layerError(layerLabel(spec), "needs out_features");
    if (spec.contains("tie_weight")) {
        if (!spec["tie_weight"].is_string())
            layerError(layerLabel(spec), "\"tie_weight\" names an earlier embedding layer, got " +
                                             spec["tie_weight"].dump());
        m_tiedTo = spec["tie_weight"].get<std::string>();
    }
}

Shape Linear::outputShape(const std::vector<Shape>& in) const {
    if (isSequence(in[0]))
        return Shape{in[0][0], in[0][1], m_outFeatures};
    return Shape{in[0][0], m_outFeatures};
}

void Linear::init(Backend& b, const std::vector<Shape>& in, uint64_t seed) {
    const int64_t fanIn = fanInOf(in[0]);
    const float bound = 1.0f / std::sqrt(static_cast<float>(fanIn));
    if (m_tied) {
        const Shape expected{m_outFeatures, fanIn};
        if (!(m_tied->value.shape() == expected))
            layerError(name(), "ties its weight to " + quoteUserData(m_tiedTo) + "'s " +
                                   m_tied->value.shape().toString() + " but needs " +
                                   expected.toString());
    } else {
        m_weight.value = b.empty({m_outFeatures, fanIn}, DType::F32);
        m_weight.grad = b.empty({m_outFeatures, fanIn}, DType::F32);
        if (m_initStd > 0.0f)
            normalInit(b, m_weight.value, m_initStd, seed);
        else
            uniformInit(b, m_weight.value, bound, seed);
    }
    if (m_hasBias) {
        m_bias.value = b.empty({m_outFeatures}, DType::F32);
        m_bias.grad = b.empty({m_outFeatures}, DType::F32);
        if (m_initStd > 0.0f)
            b.fill(m_bias.value, 0.0f);
        else
            uniformInit(b, m_bias.value, bound, seed ^ 0xb1a5ull);
    }
}

std::vector<Param*> Linear::params() {
    std::vector<Param*> out;
    if (!m_tied)
        out.push_back(&m_weight);
    if (m_hasBias)
        out.push_back(&m_bias);
    return out;
}

int64_t Linear::flops(const std::vector<Shape>& in) const {
    return 2 * in[0].numel() * m_outFeatures;
}

nlohmann::json Linear::options() const {
    nlohmann::json o{{"out_features", m_outFeatures}, {"bias", m_hasBias}};
    if (m_initStd > 0.0f)
        o["init_std"] = m_initStd;
    if (!m_tiedTo.empty())
        o["tie_weight"] = m_tiedTo;
    return o;
}

void Linear::forward(Backend& b, const Inputs& in, Tensor& out, bool) {
    const Tensor& w = weight().value;
    Tensor y = asRows(out, m_outFeatures);
    b.linearForward(asRows(*in[0], w.dim(1)), w, m_hasBias ? &m_bias.value : nullptr, y);
}

void Linear::backward(Backend& b, const Inputs& in, const Tensor&, const Tensor& dout,
                      const std::vector<Tensor*>& din) {
    const Param& w = weight();
    const int64_t fanIn = w.value.dim(1);
    Tensor dx = din[0] ? asRows(*din[0], fanIn) : Tensor();
    Tensor dw = w.grad;
    b.linearBackward(asRows(*in[0], fanIn), w.value, asRows(dout, m_outFeatures),
                     din[0] ? &dx : nullptr, dw, m_hasBias ? &m_bias.grad : nullptr);
}

} // namespace tb

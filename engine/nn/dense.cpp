// Linear layer.
#include "nn/dense.h"

#include "nn/layerutil.h"

#include <cmath>

namespace tb {

Linear::Linear(const nlohmann::json& spec)
    : m_outFeatures(intOption(spec, "out_features", 0)), m_hasBias(boolOption(spec, "bias", true)) {
    if (m_outFeatures <= 0)
        layerError(layerLabel(spec), "needs out_features");
}

Shape Linear::outputShape(const std::vector<Shape>& in) const {
    return Shape{in[0][0], m_outFeatures};
}

void Linear::init(Backend& b, const std::vector<Shape>& in, uint64_t seed) {
    const int64_t fanIn = in[0].numel() / in[0][0];
    const float bound = 1.0f / std::sqrt(static_cast<float>(fanIn));
    m_weight.value = b.empty({m_outFeatures, fanIn}, DType::F32);
    m_weight.grad = b.empty({m_outFeatures, fanIn}, DType::F32);
    uniformInit(b, m_weight.value, bound, seed);
    if (m_hasBias) {
        m_bias.value = b.empty({m_outFeatures}, DType::F32);
        m_bias.grad = b.empty({m_outFeatures}, DType::F32);
        uniformInit(b, m_bias.value, bound, seed ^ 0xb1a5ull);
    }
}

std::vector<Param*> Linear::params() {
    if (m_hasBias)
        return {&m_weight, &m_bias};
    return {&m_weight};
}

int64_t Linear::flops(const std::vector<Shape>& in) const {
    return 2 * in[0].numel() * m_outFeatures;
}

nlohmann::json Linear::options() const {
    return {{"out_features", m_outFeatures}, {"bias", m_hasBias}};
}

void Linear::forward(Backend& b, const Inputs& in, Tensor& out, bool) {
    b.linearForward(*in[0], m_weight.value, m_hasBias ? &m_bias.value : nullptr, out);
}

void Linear::backward(Backend& b, const Inputs& in, const Tensor&, const Tensor& dout,
                      const std::vector<Tensor*>& din) {
    b.linearBackward(*in[0], m_weight.value, dout, din[0], m_weight.grad,
                     m_hasBias ? &m_bias.grad : nullptr);
}

} // namespace tb

// Activation layers.
#include "nn/activation.h"

#include "nn/layerutil.h"

namespace tb {

namespace {

// gelu's "approximate": "none" (the exact erf form) or "tanh".
Activation geluForm(const nlohmann::json& spec) {
    const auto it = spec.find("approximate");
    if (it == spec.end())
        return Activation::GELU;
    if (it->is_string() && (*it == "none" || *it == "tanh"))
        return *it == "tanh" ? Activation::GELUTanh : Activation::GELU;
    layerError(layerLabel(spec), "approximate must be \"none\" or \"tanh\", not " + it->dump());
}

} // namespace

ActivationLayer::ActivationLayer(Activation kind, const nlohmann::json& spec)
    : m_kind(kind == Activation::GELU ? geluForm(spec) : kind),
      m_alpha(floatOption(spec, "negative_slope", 0.01f, {0.0, 1.0})) {}

std::string ActivationLayer::type() const {
    switch (m_kind) {
    case Activation::ReLU:
        return "relu";
    case Activation::LeakyReLU:
        return "leakyrelu";
    case Activation::GELU:
    case Activation::GELUTanh:
        return "gelu";
    case Activation::ReLU6:
        return "relu6";
    case Activation::SiLU:
        return "silu";
    }
    return "?";
}

nlohmann::json ActivationLayer::options() const {
    if (m_kind == Activation::LeakyReLU)
        return {{"negative_slope", m_alpha}};
    if (m_kind == Activation::GELUTanh)
        return {{"approximate", "tanh"}};
    return nlohmann::json::object();
}

void ActivationLayer::forward(Backend& b, const Inputs& in, Tensor& out, bool) {
    b.activationForward(m_kind, m_alpha, *in[0], out);
}

void ActivationLayer::backward(Backend& b, const Inputs& in, const Tensor&, const Tensor& dout,
                               const std::vector<Tensor*>& din) {
    b.activationBackward(m_kind, m_alpha, *in[0], dout, *din[0]);
}

} // namespace tb

// GradScaler on top of the backend's checkFinite and updateLossScale ops.
#include "optim/gradscaler.h"

namespace tb {

GradScaler::GradScaler(Backend& backend, const GradScalerConfig& config)
    : m_backend(backend), m_config(config), m_state(backend.empty({2}, DType::F32)),
      m_foundInf(backend.empty({1}, DType::F32)) {
    setState(config.initScale, 0.0f);
    m_backend.fill(m_foundInf, 0.0f);
}

void GradScaler::checkGradients(const std::vector<Param*>& params) {
    m_backend.fill(m_foundInf, 0.0f);
    std::vector<Tensor*> grads;
    for (Param* p : params)
        grads.push_back(&p->grad);
    m_backend.checkFinite(grads, m_foundInf);
}

void GradScaler::update() {
    m_backend.updateLossScale(m_state, m_foundInf, m_config.growthFactor, m_config.backoffFactor,
                              m_config.growthInterval);
}

float GradScaler::scale() {
    Tensor host = Tensor::host({2}, DType::F32);
    m_backend.copy(m_state, host);
    return host.data<float>()[0];
}

bool GradScaler::lastStepSkipped() {
    Tensor host = Tensor::host({1}, DType::F32);
    m_backend.copy(m_foundInf, host);
    return host.data<float>()[0] != 0.0f;
}

void GradScaler::setState(float scale, float tracker) {
    Tensor host = Tensor::host({2}, DType::F32);
    host.data<float>()[0] = scale;
    host.data<float>()[1] = tracker;
    m_backend.copy(host, m_state);
}

} // namespace tb

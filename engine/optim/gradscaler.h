// Dynamic loss scaling with torch.cuda.amp.GradScaler's rules: start at 65536, double after
// 2000 clean steps, halve and skip the step on inf/NaN. State lives on the device.
#pragma once

#include "backend/backend.h"
#include "nn/layer.h"

#include <vector>

namespace tb {

struct GradScalerConfig {
    float initScale = 65536.0f;
    float growthFactor = 2.0f;
    float backoffFactor = 0.5f;
    int growthInterval = 2000;
};

class GradScaler {
public:
    GradScaler(Backend& backend, const GradScalerConfig& config);

    // [scale, growth_tracker] on the device; the loss gradient is multiplied by state()[0].
    const Tensor& state() const { return m_state; }
    Tensor& state() { return m_state; }
    const Tensor& foundInf() const { return m_foundInf; }
    // Checks the gradients for inf/NaN into foundInf (after clearing it).
    void checkGradients(const std::vector<Param*>& params);
    // Backs off or grows the scale from this step's foundInf. Call after the optimizer step.
    void update();
    // Host copies (these synchronise; call at logging intervals).
    float scale();
    bool lastStepSkipped();
    void setState(float scale, float tracker);

private:
    Backend& m_backend;
    GradScalerConfig m_config;
    Tensor m_state, m_foundInf;
};

} // namespace tb

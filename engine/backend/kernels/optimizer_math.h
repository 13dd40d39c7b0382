// Per-element optimizer updates with PyTorch's formulas, shared by the CPU loops and the CUDA
// kernels. `g` is the gradient after unscaling.
#pragma once

#include "backend/opdesc.h"
#include "core/hostdevice.h"

#include <cfloat>
#include <cmath>

namespace tb::math {

// torch.optim.SGD: weight decay added to the gradient; buf = momentum * buf + g;
// Nesterov uses g + momentum * buf. The buffer starts at zero, so step one stores g.
TB_HD void sgdUpdate(const SgdParams& p, float& param, float g, float* buf) {
    g += p.weightDecay * param;
    if (p.momentum != 0.0f && buf) {
        *buf = p.momentum * *buf + g;
        g = p.nesterov ? g + p.momentum * *buf : *buf;
    }
    param -= p.lr * g;
}

// torch.optim.AdamW: decoupled weight decay, bias-corrected moments.
struct AdamWFactors {
    float decay;          // 1 - lr * weight_decay
    float stepSize;       // lr / (1 - beta1^t)
    float invBiasCorr2Sq; // 1 / sqrt(1 - beta2^t)
};

// The step count t of the bias correction: the update calls less the steps skipped before this
// one (skipped: a device or host scalar, or null when nothing skips).
TB_HD double appliedSteps(const AdamWParams& p, const float* skipped) {
    return static_cast<double>(p.step) - (skipped ? static_cast<double>(skipped[0]) : 0.0);
}

TB_HD AdamWFactors adamwFactors(const AdamWParams& p, double t) {
    const double bc1 = 1.0 - pow(static_cast<double>(p.beta1), t);
    const double bc2 = 1.0 - pow(static_cast<double>(p.beta2), t);
    return {1.0f - p.lr * p.weightDecay, static_cast<float>(p.lr / bc1),
            static_cast<float>(1.0 / sqrt(bc2))};
}

TB_HD void adamwUpdate(const AdamWParams& p, const AdamWFactors& f, float& param, float g, float& m,
                       float& v) {
    param *= f.decay;
    m = p.beta1 * m + (1.0f - p.beta1) * g;
    v = p.beta2 * v + (1.0f - p.beta2) * g * g;
    const float denom = sqrtf(v) * f.invBiasCorr2Sq + p.eps;
    param -= f.stepSize * m / denom;
}

// Gradient clipping by global norm: from the summed squares of the gradients (scaled by `scale`
// when a GradScaler scales them), the unscaled norm, recorded in stats = [largest norm, steps
// clipped]; returns the factor every gradient is multiplied by: maxNorm / (norm + 1e-6) when the
// norm exceeds maxNorm (clip_grad_norm_'s), 1 when it does not or is not finite.
TB_HD float clipFactor(double sumSquares, float scale, float maxNorm, float* stats) {
    const double norm = sqrt(sumSquares) / static_cast<double>(scale);
    if (!(norm <= DBL_MAX)) // inf or NaN (a comparison, the same on the host and the device)
        return 1.0f;
    stats[0] = fmaxf(stats[0], static_cast<float>(norm));
    if (norm <= static_cast<double>(maxNorm))
        return 1.0f;
    stats[1] += 1.0f;
    return static_cast<float>(static_cast<double>(maxNorm) / (norm + 1e-6));
}

// torch.amp.GradScaler's update of state = [scale, clean steps]: back off and restart on an
// inf/NaN; grow after growthInterval clean steps, but never into inf.
TB_HD void updateLossScale(float* state, bool foundInf, float growth, float backoff,
                           int growthInterval) {
    if (foundInf) {
        state[0] *= backoff;
        state[1] = 0.0f;
        return;
    }
    const float tracker = state[1] + 1.0f;
    if (tracker >= static_cast<float>(growthInterval)) {
        const float grown = state[0] * growth;
        if (grown <= 3.402823466e38f) // finite (not inf; NaN fails the comparison too)
            state[0] = grown;
        state[1] = 0.0f;
    } else {
        state[1] = tracker;
    }
}

} // namespace tb::math

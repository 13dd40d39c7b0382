// CpuBackend mixed-precision bookkeeping and fused optimizer updates.
#include "backend/cpu/cpubackend.h"

#include "backend/cpu/parallel.h"
#include "backend/kernels/optimizer_math.h"
#include "core/errors.h"
#include "core/half.h"

#include <cmath>

namespace tb {

void CpuBackend::checkFinite(const std::vector<Tensor*>& tensors, Tensor& foundInf) {
    bool bad = false;
    for (const Tensor* t : tensors) {
        const Tensor f = asF32(*t, 0);
        const float* p = f.data<float>();
        const int64_t n = f.numel();
        int found = 0;
#pragma omp parallel for reduction(| : found) if (n >= kParallelGrain)
        for (int64_t i = 0; i < n; ++i)
            found |= std::isfinite(p[i]) ? 0 : 1;
        if (found) {
            bad = true;
            break;
        }
    }
    if (bad)
        foundInf.data<float>()[0] = 1.0f;
}

void CpuBackend::clipGradNorm(const std::vector<Tensor*>& grads, float maxNorm,
                              const Tensor* scaleState, Tensor& stats) {
    double sumSquares = 0.0;
    for (const Tensor* g : grads) {
        if (!g || !g->defined())
            continue;
        const float* p = g->data<float>();
        const int64_t n = g->numel();
        double sum = 0.0;
#pragma omp parallel for reduction(+ : sum) if (n >= kParallelGrain)
        for (int64_t i = 0; i < n; ++i)
            sum += static_cast<double>(p[i]) * p[i];
        sumSquares += sum;
    }
    const float scale = scaleState ? scaleState->data<float>()[0] : 1.0f;
    const float factor = math::clipFactor(sumSquares, scale, maxNorm, stats.data<float>());
    if (factor == 1.0f)
        return;
    for (Tensor* g : grads) {
        if (!g || !g->defined())
            continue;
        float* p = g->data<float>();
        const int64_t n = g->numel();
#pragma omp parallel for if (n >= kParallelGrain)
        for (int64_t i = 0; i < n; ++i)
            p[i] *= factor;
    }
}

void CpuBackend::updateLossScale(Tensor& state, const Tensor& foundInf, float growth, float backoff,
                                 int growthInterval) {
    math::updateLossScale(state.data<float>(), foundInf.data<float>()[0] != 0.0f, growth, backoff,
                          growthInterval);
}

namespace {

bool skipStep(const Tensor* foundInf) {
    return foundInf && foundInf->data<float>()[0] != 0.0f;
}

float invScale(const Tensor* scaleState) {
    return scaleState ? 1.0f / scaleState->data<float>()[0] : 1.0f;
}

} // namespace

void CpuBackend::sgdStep(Tensor& param, const Tensor& grad, Tensor* momentumBuf, const SgdParams& p,
                         const Tensor* scaleState, const Tensor* foundInf) {
    if (skipStep(foundInf))
        return;
    const float inv = invScale(scaleState);
    float* w = param.data<float>();
    const float* g = grad.data<float>();
    if (!momentumBuf || p.momentum == 0.0f) {
        parallelFor(param.numel(),
                    [&](int64_t i) { math::sgdUpdate(p, w[i], g[i] * inv, nullptr); });
        return;
    }
    // The common case, with the branches hoisted so the loop vectorises; the same arithmetic
    // as math::sgdUpdate.
    float* buf = momentumBuf->data<float>();
    const float lr = p.lr, m = p.momentum, wd = p.weightDecay;
    const bool nesterov = p.nesterov;
    parallelFor(param.numel(), [&](int64_t i) {
        const float gi = g[i] * inv + wd * w[i];
        const float b = m * buf[i] + gi;
        buf[i] = b;
        w[i] -= lr * (nesterov ? gi + m * b : b);
    });
}

void CpuBackend::adamwStep(Tensor& param, const Tensor& grad, Tensor& expAvg, Tensor& expAvgSq,
                           const AdamWParams& p, const Tensor* scaleState, const Tensor* foundInf,
                           const Tensor* skippedSteps) {
    if (skipStep(foundInf))
        return;
    const float inv = invScale(scaleState);
    const math::AdamWFactors f = math::adamwFactors(
        p, math::appliedSteps(p, skippedSteps ? skippedSteps->data<float>() : nullptr));
    float* w = param.data<float>();
    const float* g = grad.data<float>();
    float* m = expAvg.data<float>();
    float* v = expAvgSq.data<float>();
    parallelFor(param.numel(),
                [&](int64_t i) { math::adamwUpdate(p, f, w[i], g[i] * inv, m[i], v[i]); });
}

} // namespace tb

// CpuBackend batch normalisation over NCHW, one channel per task, and over activations in a
// convolution's layout (cpubatchnormblocked.h), which they keep. Every sum (the statistics,
// and backward's sums of dy and dy * xhat) accumulates in double, as PyTorch's CPU kernels do,
// so a large batch loses no precision to the order of the additions.
#include "backend/cpu/cpubackend.h"

#include "backend/cpu/cpubatchnormblocked.h"
#include "backend/cpu/cpulayout.h"
#include "backend/cpu/parallel.h"
#include "core/errors.h"

#include <cmath>

namespace tb {

namespace {

struct Planes {
    int64_t n, c, hw;
};

Planes planesOf(const Tensor& x) {
    const int64_t n = x.dim(0), c = x.dim(1);
    return {n, c, x.numel() / (n * c)};
}

void requireChannelParameters(const Tensor& x, const Tensor& gamma) {
    if (gamma.numel() != x.dim(1))
        throw Error("batchNorm: " + std::to_string(gamma.numel()) + " parameters for " +
                    std::to_string(x.dim(1)) + " channels");
}

} // namespace

void CpuBackend::batchNormForwardTrain(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                       Tensor& runningMean, Tensor& runningVar, float momentum,
                                       float eps, Tensor& y, Tensor& saveMean, Tensor& saveInvStd) {
    requireChannelParameters(x, gamma);
    const auto [n, c, hw] = planesOf(x);
    if (blockedBatchNormTrain(x, gamma, beta, runningMean, runningVar, momentum, eps, y, saveMean,
                              saveInvStd, false))
        return;
    const Tensor xf = asF32(x, 0);
    Tensor yf = f32Target(y, 1);
    const float* px = xf.data<float>();
    float* py = yf.data<float>();
    const float* g = gamma.data<float>();
    const float* b = beta.data<float>();
    float* rm = runningMean.data<float>();
    float* rv = runningVar.data<float>();
    float* sm = saveMean.data<float>();
    float* si = saveInvStd.data<float>();
    const double count = static_cast<double>(n * hw);
    parallelFor(
        c,
        [&](int64_t ch) {
            double sum = 0.0;
            for (int64_t i = 0; i < n; ++i) {
                const float* p = px + (i * c + ch) * hw;
#pragma omp simd reduction(+ : sum)
                for (int64_t j = 0; j < hw; ++j)
                    sum += p[j];
            }
            const double mean = sum / count;
            double sq = 0.0;
            for (int64_t i = 0; i < n; ++i) {
                const float* p = px + (i * c + ch) * hw;
#pragma omp simd reduction(+ : sq)
                for (int64_t j = 0; j < hw; ++j) {
                    const double v = static_cast<double>(p[j]) - mean;
                    sq += v * v;
                }
            }
            const double var = sq / count;
            const double invStd = 1.0 / std::sqrt(var + eps);
            sm[ch] = static_cast<float>(mean);
            si[ch] = static_cast<float>(invStd);
            const double unbiased = count > 1 ? var * count / (count - 1) : var;
            rm[ch] = static_cast<float>((1.0 - momentum) * rm[ch] + momentum * mean);
            rv[ch] = static_cast<float>((1.0 - momentum) * rv[ch] + momentum * unbiased);
            const auto scale = static_cast<float>(g[ch] * invStd);
            const auto shift = static_cast<float>(b[ch] - mean * g[ch] * invStd);
            for (int64_t i = 0; i < n; ++i) {
                const float* p = px + (i * c + ch) * hw;
                float* q = py + (i * c + ch) * hw;
#pragma omp simd
                for (int64_t j = 0; j < hw; ++j)
                    q[j] = p[j] * scale + shift;
            }
        },
        2);
    storeF32(yf, y);
}

void CpuBackend::batchNormForwardInference(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                           const Tensor& runningMean, const Tensor& runningVar,
                                           float eps, Tensor& y) {
    const auto [n, c, hw] = planesOf(x);
    if (blockedBatchNormInference(x, gamma, beta, runningMean, runningVar, eps, y, false))
        return;
    const Tensor xf = asF32(x, 0);
    Tensor yf = f32Target(y, 1);
    const float* px = xf.data<float>();
    float* py = yf.data<float>();
    const float* g = gamma.data<float>();
    const float* b = beta.data<float>();
    const float* rm = runningMean.data<float>();
    const float* rv = runningVar.data<float>();
    parallelFor(
        n * c,
        [&](int64_t plane) {
            const int64_t ch = plane % c;
            const float scale = g[ch] / std::sqrt(rv[ch] + eps);
            const float shift = b[ch] - rm[ch] * scale;
            const float* p = px + plane * hw;
            float* q = py + plane * hw;
#pragma omp simd
            for (int64_t j = 0; j < hw; ++j)
                q[j] = p[j] * scale + shift;
        },
        16);
    storeF32(yf, y);
}

bool CpuBackend::blockedBatchNormTrain(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                       Tensor& runningMean, Tensor& runningVar, float momentum,
                                       float eps, Tensor& y, Tensor& saveMean, Tensor& saveInvStd,
                                       bool relu) {
    const int block = layoutOf(x);
    const auto [n, c, hw] = planesOf(x);
    if (block == 0 || !blockedbn::supports({n, c, hw, block}) || x.dtype() != y.dtype() ||
        !mayBlock(y))
        return false;
    blockedbn::forwardTrain({n, c, hw, block}, x.dtype(), x.raw(), gamma.data<float>(),
                            beta.data<float>(),
                            {saveMean.data<float>(), saveInvStd.data<float>(),
                             runningMean.data<float>(), runningVar.data<float>(), momentum, eps},
                            relu, y.raw());
    setLayout(y, block);
    return true;
}

bool CpuBackend::blockedBatchNormInference(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                           const Tensor& runningMean, const Tensor& runningVar,
                                           float eps, Tensor& y, bool relu) {
    const int block = layoutOf(x);
    const auto [n, c, hw] = planesOf(x);
    if (block == 0 || !blockedbn::supports({n, c, hw, block}) || x.dtype() != y.dtype() ||
        !mayBlock(y))
        return false;
    blockedbn::forwardInference({n, c, hw, block}, x.dtype(), x.raw(), gamma.data<float>(),
                                beta.data<float>(), runningMean.data<float>(),
                                runningVar.data<float>(), eps, relu, y.raw());
    setLayout(y, block);
    return true;
}

void CpuBackend::batchNormReluForwardTrain(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                           Tensor& runningMean, Tensor& runningVar, float momentum,
                                           float eps, Tensor& y, Tensor& saveMean,
                                           Tensor& saveInvStd) {
    requireChannelParameters(x, gamma);
    if (!blockedBatchNormTrain(x, gamma, beta, runningMean, runningVar, momentum, eps, y, saveMean,
                               saveInvStd, true))
        Backend::batchNormReluForwardTrain(x, gamma, beta, runningMean, runningVar, momentum, eps,
                                           y, saveMean, saveInvStd);
}

void CpuBackend::batchNormReluForwardInference(const Tensor& x, const Tensor& gamma,
                                               const Tensor& beta, const Tensor& runningMean,
                                               const Tensor& runningVar, float eps, Tensor& y) {
    if (!blockedBatchNormInference(x, gamma, beta, runningMean, runningVar, eps, y, true))
        Backend::batchNormReluForwardInference(x, gamma, beta, runningMean, runningVar, eps, y);
}

bool CpuBackend::blockedBatchNormBackward(const Tensor& x, const Tensor* reluOutput,
                                          const Tensor& dy, const Tensor& gamma,
                                          const Tensor& saveMean, const Tensor& saveInvStd,
                                          Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
    const int block = layoutOf(x);
    const auto [n, c, hw] = planesOf(x);
    if (block == 0 || !blockedbn::supports({n, c, hw, block}) || layoutOf(dy) != block ||
        dy.dtype() != x.dtype() || dx.dtype() != x.dtype() || !mayBlock(dx) ||
        (reluOutput && (layoutOf(*reluOutput) != block || reluOutput->dtype() != x.dtype())))
        return false;
    blockedbn::backward({n, c, hw, block}, x.dtype(), x.raw(), dy.raw(),
                        reluOutput ? reluOutput->raw() : nullptr, gamma.data<float>(),
                        saveMean.data<float>(), saveInvStd.data<float>(), dx.raw(),
                        dgamma.data<float>(), dbeta.data<float>());
    setLayout(dx, block);
    return true;
}

void CpuBackend::batchNormReluBackward(const Tensor& x, const Tensor& y, Tensor& dy,
                                       const Tensor& gamma, const Tensor& saveMean,
                                       const Tensor& saveInvStd, float eps, Tensor& dx,
                                       Tensor& dgamma, Tensor& dbeta) {
    if (!blockedBatchNormBackward(x, &y, dy, gamma, saveMean, saveInvStd, dx, dgamma, dbeta))
        Backend::batchNormReluBackward(x, y, dy, gamma, saveMean, saveInvStd, eps, dx, dgamma,
                                       dbeta);
}

void CpuBackend::batchNormBackward(const Tensor& x, const Tensor& dy, const Tensor& gamma,
                                   const Tensor& saveMean, const Tensor& saveInvStd, float /*eps*/,
                                   Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
    const auto [n, c, hw] = planesOf(x);
    if (blockedBatchNormBackward(x, nullptr, dy, gamma, saveMean, saveInvStd, dx, dgamma, dbeta))
        return;
    const Tensor xf = asF32(x, 0);
    const Tensor dyf = asF32(dy, 1);
    Tensor dxf = f32Target(dx, 2);
    const float* px = xf.data<float>();
    const float* pdy = dyf.data<float>();
    float* pdx = dxf.data<float>();
    const float* g = gamma.data<float>();
    const float* sm = saveMean.data<float>();
    const float* si = saveInvStd.data<float>();
    float* dg = dgamma.data<float>();
    float* dbt = dbeta.data<float>();
    const auto count = static_cast<float>(n * hw);
    parallelFor(
        c,
        [&](int64_t ch) {
            const float mean = sm[ch], invStd = si[ch];
            double sumDy = 0.0, sumDyXc = 0.0; // sums of dy and dy * (x - mean)
            for (int64_t i = 0; i < n; ++i) {
                const float* p = px + (i * c + ch) * hw;
                const float* d = pdy + (i * c + ch) * hw;
#pragma omp simd reduction(+ : sumDy, sumDyXc)
                for (int64_t j = 0; j < hw; ++j) {
                    sumDy += d[j];
                    sumDyXc += static_cast<double>(d[j]) * (p[j] - mean);
                }
            }
            const double sumDyXhat = sumDyXc * invStd;
            dg[ch] += static_cast<float>(sumDyXhat);
            dbt[ch] += static_cast<float>(sumDy);
            // dx = gamma * invStd / M * (M * dy - sum(dy) - xhat * sum(dy * xhat))
            const float k = g[ch] * invStd / count;
            const auto meanDy = static_cast<float>(sumDy);
            const auto meanDyXhat = static_cast<float>(sumDyXhat);
            for (int64_t i = 0; i < n; ++i) {
                const float* p = px + (i * c + ch) * hw;
                const float* d = pdy + (i * c + ch) * hw;
                float* q = pdx + (i * c + ch) * hw;
#pragma omp simd
                for (int64_t j = 0; j < hw; ++j) {
                    const float xhat = (p[j] - mean) * invStd;
                    q[j] = k * (count * d[j] - meanDy - xhat * meanDyXhat);
                }
            }
        },
        2);
    storeF32(dxf, dx);
}

} // namespace tb

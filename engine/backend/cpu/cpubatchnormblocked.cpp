// Blocked batch norm: per-plane partial sums (in parallel), reduced per channel in double,
// then a parallel elementwise pass; backward reads x and dy twice (both sums in one pass).
// Values are f32 or bf16 (T = uint16_t), read and written in place; arithmetic is f32.
#include "backend/cpu/cpubatchnormblocked.h"

#include "backend/cpu/elementaccess.h"
#include "backend/cpu/multiversion.h"
#include "backend/cpu/parallel.h"

#include <cmath>
#include <type_traits>
#include <vector>

namespace tb::blockedbn {

namespace {

// Per-plane kernels: a plane is hw x B values, channel lane l innermost.

// s[l] = sum over j of x[j, l]
template <int B, typename T> TB_MULTIVERSION void sumPlane(const T* x, int64_t hw, float* s) {
    float acc[B] = {};
    for (int64_t j = 0; j < hw; ++j)
#pragma omp simd
        for (int l = 0; l < B; ++l)
            acc[l] += loadValue(x[j * B + l]);
    for (int l = 0; l < B; ++l)
        s[l] = acc[l];
}

// s[l] = sum over j of (x[j, l] - mean[l])^2
template <int B, typename T>
TB_MULTIVERSION void squaredDeviationPlane(const T* x, int64_t hw, const float* mean, float* s) {
    float acc[B] = {};
    for (int64_t j = 0; j < hw; ++j)
#pragma omp simd
        for (int l = 0; l < B; ++l) {
            const float v = loadValue(x[j * B + l]) - mean[l];
            acc[l] += v * v;
        }
    for (int l = 0; l < B; ++l)
        s[l] = acc[l];
}

// sumDy[l] = sum of dy, sumDyXhat[l] = sum of dy * xhat, in one pass. With a mask (the fused
// ReLU's output), dy counts only where the mask is positive.
template <int B, typename T, bool Masked>
TB_MULTIVERSION void gradientSumsPlane(const T* x, const T* dy, const T* mask, int64_t hw,
                                       const float* mean, const float* invStd, float* sumDy,
                                       float* sumDyXhat) {
    float a[B] = {}, b[B] = {};
    for (int64_t j = 0; j < hw; ++j)
#pragma omp simd
        for (int l = 0; l < B; ++l) {
            const float raw = loadValue(dy[j * B + l]);
            const float g = Masked ? (loadValue(mask[j * B + l]) > 0.0f ? raw : 0.0f) : raw;
            a[l] += g;
            b[l] += g * (loadValue(x[j * B + l]) - mean[l]) * invStd[l];
        }
    for (int l = 0; l < B; ++l) {
        sumDy[l] = a[l];
        sumDyXhat[l] = b[l];
    }
}

// y[j, l] = x[j, l] * scale[l] + shift[l], then max(y, 0) with Relu
template <int B, typename T, bool Relu>
TB_MULTIVERSION void affinePlane(const T* x, int64_t hw, const float* scale, const float* shift,
                                 T* y) {
    for (int64_t j = 0; j < hw; ++j)
#pragma omp simd
        for (int l = 0; l < B; ++l) {
            const float v = loadValue(x[j * B + l]) * scale[l] + shift[l];
            storeValue(y[j * B + l], Relu ? (v > 0.0f ? v : 0.0f) : v);
        }
}

struct BackwardCoefficients {
    const float *k, *sumDy, *sumDyXhat, *mean, *invStd;
    float count;
};

// dx = k * (M * dy - sum(dy) - xhat * sum(dy * xhat)), dy masked as in gradientSumsPlane
template <int B, typename T, bool Masked>
TB_MULTIVERSION void inputGradientPlane(const T* x, const T* dy, const T* mask, int64_t hw,
                                        const BackwardCoefficients& c, T* dx) {
    for (int64_t j = 0; j < hw; ++j)
#pragma omp simd
        for (int l = 0; l < B; ++l) {
            const float raw = loadValue(dy[j * B + l]);
            const float g = Masked ? (loadValue(mask[j * B + l]) > 0.0f ? raw : 0.0f) : raw;
            const float xhat = (loadValue(x[j * B + l]) - c.mean[l]) * c.invStd[l];
            storeValue(dx[j * B + l], c.k[l] * (c.count * g - c.sumDy[l] - xhat * c.sumDyXhat[l]));
        }
}

// Per channel, in double: the sum over images of the per-plane sums (plane p = i * blocks + cb).
template <int B>
std::vector<double> channelSums(const Dims& d, const std::vector<float>& planeSums) {
    const int64_t blocks = d.c / B;
    std::vector<double> total(static_cast<std::size_t>(d.c), 0.0);
    for (int64_t i = 0; i < d.n; ++i)
        for (int64_t cb = 0; cb < blocks; ++cb)
            for (int l = 0; l < B; ++l)
                total[static_cast<std::size_t>(cb * B + l)] +=
                    planeSums[static_cast<std::size_t>((i * blocks + cb) * B + l)];
    return total;
}

// Each plane's f(p, channel offset of its block) in parallel.
template <int B, typename F> void forEachPlane(const Dims& d, F f) {
    const int64_t blocks = d.c / B;
    parallelFor(
        d.n * blocks, [&](int64_t p) { f(p, (p % blocks) * B); }, 2);
}

template <int B, typename T>
void affine(const Dims& d, const T* x, const float* scale, const float* shift, bool relu, T* y) {
    const int64_t hwB = d.hw * B;
    forEachPlane<B>(d, [&](int64_t p, int64_t c0) {
        if (relu)
            affinePlane<B, T, true>(x + p * hwB, d.hw, scale + c0, shift + c0, y + p * hwB);
        else
            affinePlane<B, T, false>(x + p * hwB, d.hw, scale + c0, shift + c0, y + p * hwB);
    });
}

template <int B, typename T>
void forwardTrainB(const Dims& d, const T* x, const float* gamma, const float* beta,
                   const Stats& st, bool relu, T* y) {
    const int64_t hwB = d.hw * B;
    const double count = static_cast<double>(d.n * d.hw);
    std::vector<float> sums(static_cast<std::size_t>(d.n * d.c));
    forEachPlane<B>(d,
                    [&](int64_t p, int64_t) { sumPlane<B, T>(x + p * hwB, d.hw, &sums[p * B]); });
    const std::vector<double> total = channelSums<B>(d, sums);
    std::vector<float> mean(static_cast<std::size_t>(d.c));
    for (int64_t ch = 0; ch < d.c; ++ch)
        mean[static_cast<std::size_t>(ch)] =
            static_cast<float>(total[static_cast<std::size_t>(ch)] / count);
    forEachPlane<B>(d, [&](int64_t p, int64_t c0) {
        squaredDeviationPlane<B, T>(x + p * hwB, d.hw, &mean[c0], &sums[p * B]);
    });
    const std::vector<double> sq = channelSums<B>(d, sums);
    std::vector<float> scale(static_cast<std::size_t>(d.c)), shift(scale.size());
    for (int64_t ch = 0; ch < d.c; ++ch) {
        const auto k = static_cast<std::size_t>(ch);
        const double var = sq[k] / count;
        const auto invStd = static_cast<float>(1.0 / std::sqrt(var + st.eps));
        const double unbiased = count > 1 ? var * count / (count - 1) : var;
        st.saveMean[ch] = mean[k];
        st.saveInvStd[ch] = invStd;
        st.runningMean[ch] = (1.0f - st.momentum) * st.runningMean[ch] + st.momentum * mean[k];
        st.runningVar[ch] =
            (1.0f - st.momentum) * st.runningVar[ch] + st.momentum * static_cast<float>(unbiased);
        scale[k] = gamma[ch] * invStd;
        shift[k] = beta[ch] - mean[k] * scale[k];
    }
    affine<B, T>(d, x, scale.data(), shift.data(), relu, y);
}

template <int B, typename T, bool Masked>
void backwardB(const Dims& d, const T* x, const T* dy, const T* mask, const float* gamma,
               const float* saveMean, const float* saveInvStd, T* dx, float* dgamma, float* dbeta) {
    const int64_t hwB = d.hw * B;
    std::vector<float> dySums(static_cast<std::size_t>(d.n * d.c)), dyXhatSums(dySums.size());
    forEachPlane<B>(d, [&](int64_t p, int64_t c0) {
        gradientSumsPlane<B, T, Masked>(x + p * hwB, dy + p * hwB,
                                        Masked ? mask + p * hwB : nullptr, d.hw, saveMean + c0,
                                        saveInvStd + c0, &dySums[p * B], &dyXhatSums[p * B]);
    });
    const std::vector<double> sumDy = channelSums<B>(d, dySums),
                              sumDyXhat = channelSums<B>(d, dyXhatSums);
    std::vector<float> k(static_cast<std::size_t>(d.c)), a(k.size()), b(k.size());
    const auto count = static_cast<float>(d.n * d.hw);
    for (int64_t ch = 0; ch < d.c; ++ch) {
        const auto c = static_cast<std::size_t>(ch);
        dgamma[ch] += static_cast<float>(sumDyXhat[c]);
        dbeta[ch] += static_cast<float>(sumDy[c]);
        k[c] = gamma[ch] * saveInvStd[ch] / count;
        a[c] = static_cast<float>(sumDy[c]);
        b[c] = static_cast<float>(sumDyXhat[c]);
    }
    forEachPlane<B>(d, [&](int64_t p, int64_t c0) {
        const BackwardCoefficients coefficients{&k[c0],        &a[c0],          &b[c0],
                                                saveMean + c0, saveInvStd + c0, count};
        inputGradientPlane<B, T, Masked>(x + p * hwB, dy + p * hwB,
                                         Masked ? mask + p * hwB : nullptr, d.hw, coefficients,
                                         dx + p * hwB);
    });
}

// Calls f with the block size and the stored type as template arguments.
template <typename F> void dispatch(const Dims& d, DType t, F f) {
    const bool bf16 = t == DType::BF16;
    if (d.block == 16 && bf16)
        f(std::integral_constant<int, 16>{}, uint16_t{});
    else if (d.block == 16)
        f(std::integral_constant<int, 16>{}, float{});
    else if (bf16)
        f(std::integral_constant<int, 8>{}, uint16_t{});
    else
        f(std::integral_constant<int, 8>{}, float{});
}

} // namespace

void forwardTrain(const Dims& d, DType t, const void* x, const float* gamma, const float* beta,
                  const Stats& stats, bool relu, void* y) {
    dispatch(d, t, [&](auto block, auto type) {
        using T = decltype(type);
        forwardTrainB<block(), T>(d, static_cast<const T*>(x), gamma, beta, stats, relu,
                                  static_cast<T*>(y));
    });
}

void forwardInference(const Dims& d, DType t, const void* x, const float* gamma, const float* beta,
                      const float* runningMean, const float* runningVar, float eps, bool relu,
                      void* y) {
    std::vector<float> scale(static_cast<std::size_t>(d.c)), shift(scale.size());
    for (int64_t ch = 0; ch < d.c; ++ch) {
        const auto k = static_cast<std::size_t>(ch);
        scale[k] = gamma[ch] / std::sqrt(runningVar[ch] + eps);
        shift[k] = beta[ch] - runningMean[ch] * scale[k];
    }
    dispatch(d, t, [&](auto block, auto type) {
        using T = decltype(type);
        affine<block(), T>(d, static_cast<const T*>(x), scale.data(), shift.data(), relu,
                           static_cast<T*>(y));
    });
}

void backward(const Dims& d, DType t, const void* x, const void* dy, const void* reluMask,
              const float* gamma, const float* saveMean, const float* saveInvStd, void* dx,
              float* dgamma, float* dbeta) {
    dispatch(d, t, [&](auto block, auto type) {
        using T = decltype(type);
        const auto* px = static_cast<const T*>(x);
        const auto* pdy = static_cast<const T*>(dy);
        const auto* mask = static_cast<const T*>(reluMask);
        auto* pdx = static_cast<T*>(dx);
        if (mask)
            backwardB<block(), T, true>(d, px, pdy, mask, gamma, saveMean, saveInvStd, pdx, dgamma,
                                        dbeta);
        else
            backwardB<block(), T, false>(d, px, pdy, mask, gamma, saveMean, saveInvStd, pdx, dgamma,
                                         dbeta);
    });
}

} // namespace tb::blockedbn

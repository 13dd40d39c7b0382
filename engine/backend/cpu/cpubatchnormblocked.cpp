// Blocked batch norm: per-plane partial sums (in parallel), reduced per channel in double,
// then a parallel elementwise pass. Values are f32 or bf16 (T = uint16_t), read and written
// in place; arithmetic is f32.
#include "backend/cpu/cpubatchnormblocked.h"

#include "backend/cpu/elementaccess.h"
#include "backend/cpu/parallel.h"

#include <cmath>
#include <type_traits>
#include <vector>

namespace tb::blockedbn {

namespace {

// For each plane p = i * blocks + cb: sums[p * B + l] = sum over j of f(p, j, l).
template <int B, typename F> void planeSums(const Dims& d, std::vector<double>& sums, F f) {
    const int64_t planes = d.n * (d.c / B);
    sums.assign(static_cast<std::size_t>(planes * B), 0.0);
    parallelFor(
        planes,
        [&](int64_t p) {
            float s[B] = {};
            for (int64_t j = 0; j < d.hw; ++j)
#pragma omp simd
                for (int l = 0; l < B; ++l)
                    s[l] += f(p, j, l);
            for (int l = 0; l < B; ++l)
                sums[static_cast<std::size_t>(p * B + l)] = s[l];
        },
        2);
}

// Per channel: the sum over images of the per-plane sums.
template <int B> std::vector<double> channelSums(const Dims& d, const std::vector<double>& sums) {
    const int64_t blocks = d.c / B;
    std::vector<double> total(static_cast<std::size_t>(d.c), 0.0);
    for (int64_t i = 0; i < d.n; ++i)
        for (int64_t cb = 0; cb < blocks; ++cb)
            for (int l = 0; l < B; ++l)
                total[static_cast<std::size_t>(cb * B + l)] +=
                    sums[static_cast<std::size_t>((i * blocks + cb) * B + l)];
    return total;
}

// y[p, j, l] = x[p, j, l] * scale[ch] + shift[ch] for every plane.
template <int B, typename T>
void affine(const Dims& d, const T* x, const float* scale, const float* shift, T* y) {
    const int64_t blocks = d.c / B;
    parallelFor(
        d.n * blocks,
        [&](int64_t p) {
            const float* sc = scale + (p % blocks) * B;
            const float* sh = shift + (p % blocks) * B;
            const T* in = x + p * d.hw * B;
            T* out = y + p * d.hw * B;
            for (int64_t j = 0; j < d.hw; ++j)
#pragma omp simd
                for (int l = 0; l < B; ++l)
                    storeValue(out[j * B + l], loadValue(in[j * B + l]) * sc[l] + sh[l]);
        },
        2);
}

template <int B, typename T>
void forwardTrainB(const Dims& d, const T* x, const float* gamma, const float* beta,
                   const Stats& st, T* y) {
    const int64_t blocks = d.c / B, hwB = d.hw * B;
    const double count = static_cast<double>(d.n * d.hw);
    std::vector<double> sums;
    planeSums<B>(d, sums,
                 [&](int64_t p, int64_t j, int l) { return loadValue(x[p * hwB + j * B + l]); });
    const std::vector<double> total = channelSums<B>(d, sums);
    std::vector<float> mean(static_cast<std::size_t>(d.c));
    for (int64_t ch = 0; ch < d.c; ++ch)
        mean[static_cast<std::size_t>(ch)] =
            static_cast<float>(total[static_cast<std::size_t>(ch)] / count);
    const float* m = mean.data();
    planeSums<B>(d, sums, [&](int64_t p, int64_t j, int l) {
        const float v = loadValue(x[p * hwB + j * B + l]) - m[(p % blocks) * B + l];
        return v * v;
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
    affine<B, T>(d, x, scale.data(), shift.data(), y);
}

template <int B, typename T>
void backwardB(const Dims& d, const T* x, const T* dy, const float* gamma, const float* saveMean,
               const float* saveInvStd, T* dx, float* dgamma, float* dbeta) {
    const int64_t blocks = d.c / B, hwB = d.hw * B;
    const auto count = static_cast<float>(d.n * d.hw);
    std::vector<double> sums;
    planeSums<B>(d, sums,
                 [&](int64_t p, int64_t j, int l) { return loadValue(dy[p * hwB + j * B + l]); });
    const std::vector<double> sumDy = channelSums<B>(d, sums);
    planeSums<B>(d, sums, [&](int64_t p, int64_t j, int l) {
        const int64_t ch = (p % blocks) * B + l, i = p * hwB + j * B + l;
        return loadValue(dy[i]) * (loadValue(x[i]) - saveMean[ch]) * saveInvStd[ch];
    });
    const std::vector<double> sumDyXhat = channelSums<B>(d, sums);
    std::vector<float> k(static_cast<std::size_t>(d.c)), a(k.size()), b(k.size());
    for (int64_t ch = 0; ch < d.c; ++ch) {
        const auto c = static_cast<std::size_t>(ch);
        dgamma[ch] += static_cast<float>(sumDyXhat[c]);
        dbeta[ch] += static_cast<float>(sumDy[c]);
        k[c] = gamma[ch] * saveInvStd[ch] / count;
        a[c] = static_cast<float>(sumDy[c]);
        b[c] = static_cast<float>(sumDyXhat[c]);
    }
    parallelFor(
        d.n * blocks,
        [&](int64_t p) {
            const int64_t c0 = (p % blocks) * B;
            const float *kk = k.data() + c0, *aa = a.data() + c0, *bb = b.data() + c0;
            const float *mean = saveMean + c0, *invStd = saveInvStd + c0;
            for (int64_t j = 0; j < d.hw; ++j)
#pragma omp simd
                for (int l = 0; l < B; ++l) {
                    const int64_t i = p * hwB + j * B + l;
                    const float xhat = (loadValue(x[i]) - mean[l]) * invStd[l];
                    storeValue(dx[i], kk[l] * (count * loadValue(dy[i]) - aa[l] - xhat * bb[l]));
                }
        },
        2);
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
                  const Stats& stats, void* y) {
    dispatch(d, t, [&](auto block, auto type) {
        using T = decltype(type);
        forwardTrainB<block(), T>(d, static_cast<const T*>(x), gamma, beta, stats,
                                  static_cast<T*>(y));
    });
}

void forwardInference(const Dims& d, DType t, const void* x, const float* gamma, const float* beta,
                      const float* runningMean, const float* runningVar, float eps, void* y) {
    std::vector<float> scale(static_cast<std::size_t>(d.c)), shift(scale.size());
    for (int64_t ch = 0; ch < d.c; ++ch) {
        const auto k = static_cast<std::size_t>(ch);
        scale[k] = gamma[ch] / std::sqrt(runningVar[ch] + eps);
        shift[k] = beta[ch] - runningMean[ch] * scale[k];
    }
    dispatch(d, t, [&](auto block, auto type) {
        using T = decltype(type);
        affine<block(), T>(d, static_cast<const T*>(x), scale.data(), shift.data(),
                           static_cast<T*>(y));
    });
}

void backward(const Dims& d, DType t, const void* x, const void* dy, const float* gamma,
              const float* saveMean, const float* saveInvStd, void* dx, float* dgamma,
              float* dbeta) {
    dispatch(d, t, [&](auto block, auto type) {
        using T = decltype(type);
        backwardB<block(), T>(d, static_cast<const T*>(x), static_cast<const T*>(dy), gamma,
                              saveMean, saveInvStd, static_cast<T*>(dx), dgamma, dbeta);
    });
}

} // namespace tb::blockedbn

// Batch norm in a convolution's layout: per-plane partial sums (in parallel, float within short
// runs of rows and double across them), reduced per channel in double, then a parallel
// elementwise pass; backward reads x and dy twice (both
// sums in one pass). Values are f32 or bf16 (T = uint16_t), read and written in place; the
// elementwise arithmetic is f32.
#include "backend/cpu/cpubatchnormblocked.h"

#include "backend/cpu/cpulayout.h"
#include "backend/cpu/elementaccess.h"
#include "backend/cpu/multiversion.h"
#include "backend/cpu/parallel.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

namespace tb::blockedbn {

namespace {

// Per-plane kernels: a plane is hw rows of B channels, row j at x + j * rs (rs = B for a
// blocked layout, c for channels-last), channel lane l innermost.
//
// The sums run in float over runs of kRowsPerRun rows (one vector per lane group, as fast as a
// float sum) and each run's sum is added to a double total: the float part adds at most
// kRowsPerRun terms, so the whole sum is about as exact as one in double throughout (PyTorch's
// precision) at the speed of float.
constexpr int64_t kRowsPerRun = 16;

// s[l] = sum over j of x[j, l]
template <int B, typename T>
TB_MULTIVERSION void sumPlane(const T* x, int64_t hw, int64_t rs, double* s) {
    double total[B] = {};
    for (int64_t j0 = 0; j0 < hw; j0 += kRowsPerRun) {
        float acc[B] = {};
        for (int64_t j = j0; j < std::min(hw, j0 + kRowsPerRun); ++j)
#pragma omp simd
            for (int l = 0; l < B; ++l)
                acc[l] += loadValue(x[j * rs + l]);
        for (int l = 0; l < B; ++l)
            total[l] += acc[l];
    }
    for (int l = 0; l < B; ++l)
        s[l] = total[l];
}

// s[l] = sum over j of (x[j, l] - mean[l])^2, the mean rounded to float
template <int B, typename T>
TB_MULTIVERSION void squaredDeviationPlane(const T* x, int64_t hw, int64_t rs, const float* mean,
                                           double* s) {
    double total[B] = {};
    for (int64_t j0 = 0; j0 < hw; j0 += kRowsPerRun) {
        float acc[B] = {};
        for (int64_t j = j0; j < std::min(hw, j0 + kRowsPerRun); ++j)
#pragma omp simd
            for (int l = 0; l < B; ++l) {
                const float v = loadValue(x[j * rs + l]) - mean[l];
                acc[l] += v * v;
            }
        for (int l = 0; l < B; ++l)
            total[l] += acc[l];
    }
    for (int l = 0; l < B; ++l)
        s[l] = total[l];
}

// sumDy[l] = sum of dy, sumDyXc[l] = sum of dy * (x - mean), in one pass; the caller scales
// the second by invStd once per channel. With a mask (the fused ReLU's output), dy counts only
// where the mask is positive.
template <int B, typename T, bool Masked>
TB_MULTIVERSION void gradientSumsPlane(const T* x, const T* dy, const T* mask, int64_t hw,
                                       int64_t rs, const float* mean, double* sumDy,
                                       double* sumDyXc) {
    double totalA[B] = {}, totalB[B] = {};
    for (int64_t j0 = 0; j0 < hw; j0 += kRowsPerRun) {
        float a[B] = {}, b[B] = {};
        for (int64_t j = j0; j < std::min(hw, j0 + kRowsPerRun); ++j)
#pragma omp simd
            for (int l = 0; l < B; ++l) {
                const float raw = loadValue(dy[j * rs + l]);
                const float g = Masked ? (loadValue(mask[j * rs + l]) > 0.0f ? raw : 0.0f) : raw;
                a[l] += g;
                b[l] += g * (loadValue(x[j * rs + l]) - mean[l]);
            }
        for (int l = 0; l < B; ++l) {
            totalA[l] += a[l];
            totalB[l] += b[l];
        }
    }
    for (int l = 0; l < B; ++l) {
        sumDy[l] = totalA[l];
        sumDyXc[l] = totalB[l];
    }
}

// y[j, l] = x[j, l] * scale[l] + shift[l], then max(y, 0) with Relu
template <int B, typename T, bool Relu>
TB_MULTIVERSION void affinePlane(const T* x, int64_t hw, int64_t rs, const float* scale,
                                 const float* shift, T* y) {
    for (int64_t j = 0; j < hw; ++j)
#pragma omp simd
        for (int l = 0; l < B; ++l) {
            const float v = loadValue(x[j * rs + l]) * scale[l] + shift[l];
            storeValue(y[j * rs + l], Relu ? (v > 0.0f ? v : 0.0f) : v);
        }
}

struct BackwardCoefficients {
    const float *k, *sumDy, *sumDyXhat, *mean, *invStd;
    float count;
};

// dx = k * (M * dy - sum(dy) - xhat * sum(dy * xhat)), dy masked as in gradientSumsPlane
template <int B, typename T, bool Masked>
TB_MULTIVERSION void inputGradientPlane(const T* x, const T* dy, const T* mask, int64_t hw,
                                        int64_t rs, const BackwardCoefficients& c, T* dx) {
    for (int64_t j = 0; j < hw; ++j)
#pragma omp simd
        for (int l = 0; l < B; ++l) {
            const float raw = loadValue(dy[j * rs + l]);
            const float g = Masked ? (loadValue(mask[j * rs + l]) > 0.0f ? raw : 0.0f) : raw;
            const float xhat = (loadValue(x[j * rs + l]) - c.mean[l]) * c.invStd[l];
            storeValue(dx[j * rs + l], c.k[l] * (c.count * g - c.sumDy[l] - xhat * c.sumDyXhat[l]));
        }
}

// Where the planes of one layout lie: plane p = i * groups + g covers image i, channels
// [g * B, g * B + B), starting at offset(p), rows rowStride apart.
template <int B> struct PlaneGeometry {
    int64_t c, hw, groups;
    bool channelsLast;
    explicit PlaneGeometry(const Dims& d)
        : c(d.c), hw(d.hw), groups(d.c / B), channelsLast(d.layout == kChannelsLast) {}
    int64_t offset(int64_t p) const {
        return channelsLast ? (p / groups) * hw * c + (p % groups) * B : p * hw * B;
    }
    int64_t rowStride() const { return channelsLast ? c : B; }
    int64_t firstChannel(int64_t p) const { return (p % groups) * B; }
};

// Per channel: the sum over images of the per-plane sums (plane p = i * groups + g).
template <int B> std::vector<double> channelSums(const Dims& d, const std::vector<double>& planes) {
    const int64_t groups = d.c / B;
    std::vector<double> total(static_cast<std::size_t>(d.c), 0.0);
    for (int64_t i = 0; i < d.n; ++i)
        for (int64_t g = 0; g < groups; ++g)
            for (int l = 0; l < B; ++l)
                total[static_cast<std::size_t>(g * B + l)] +=
                    planes[static_cast<std::size_t>((i * groups + g) * B + l)];
    return total;
}

// f(offset of the plane's first value, its first channel, its index) for each plane, in
// parallel.
template <int B, typename F> void forEachPlane(const Dims& d, F f) {
    const PlaneGeometry<B> geo(d);
    parallelFor(
        d.n * geo.groups, [&](int64_t p) { f(geo.offset(p), geo.firstChannel(p), p); }, 2);
}

template <int B, typename T>
void affine(const Dims& d, const T* x, const float* scale, const float* shift, bool relu, T* y) {
    const int64_t rs = PlaneGeometry<B>(d).rowStride();
    forEachPlane<B>(d, [&](int64_t at, int64_t c0, int64_t) {
        if (relu)
            affinePlane<B, T, true>(x + at, d.hw, rs, scale + c0, shift + c0, y + at);
        else
            affinePlane<B, T, false>(x + at, d.hw, rs, scale + c0, shift + c0, y + at);
    });
}

template <int B, typename T>
void forwardTrainB(const Dims& d, const T* x, const float* gamma, const float* beta,
                   const Stats& st, bool relu, T* y) {
    const int64_t rs = PlaneGeometry<B>(d).rowStride();
    const double count = static_cast<double>(d.n * d.hw);
    std::vector<double> sums(static_cast<std::size_t>(d.n * d.c));
    forEachPlane<B>(d, [&](int64_t at, int64_t, int64_t p) {
        sumPlane<B, T>(x + at, d.hw, rs, &sums[static_cast<std::size_t>(p * B)]);
    });
    std::vector<double> mean = channelSums<B>(d, sums);
    std::vector<float> meanF(mean.size());
    for (std::size_t ch = 0; ch < mean.size(); ++ch)
        meanF[ch] = static_cast<float>(mean[ch] /= count);
    // Deviations from the float mean; the variance about it exceeds the true one by the
    // square of the mean's rounding, far below float resolution.
    forEachPlane<B>(d, [&](int64_t at, int64_t c0, int64_t p) {
        squaredDeviationPlane<B, T>(x + at, d.hw, rs, &meanF[static_cast<std::size_t>(c0)],
                                    &sums[static_cast<std::size_t>(p * B)]);
    });
    const std::vector<double> sq = channelSums<B>(d, sums);
    std::vector<float> scale(static_cast<std::size_t>(d.c)), shift(scale.size());
    for (int64_t ch = 0; ch < d.c; ++ch) {
        const auto k = static_cast<std::size_t>(ch);
        const double var = sq[k] / count;
        const double invStd = 1.0 / std::sqrt(var + st.eps);
        const double unbiased = count > 1 ? var * count / (count - 1) : var;
        st.saveMean[ch] = static_cast<float>(mean[k]);
        st.saveInvStd[ch] = static_cast<float>(invStd);
        st.runningMean[ch] = static_cast<float>((1.0 - st.momentum) * st.runningMean[ch] +
                                                st.momentum * mean[k]);
        st.runningVar[ch] = static_cast<float>((1.0 - st.momentum) * st.runningVar[ch] +
                                               st.momentum * unbiased);
        scale[k] = static_cast<float>(gamma[ch] * invStd);
        shift[k] = static_cast<float>(beta[ch] - mean[k] * gamma[ch] * invStd);
    }
    affine<B, T>(d, x, scale.data(), shift.data(), relu, y);
}

template <int B, typename T, bool Masked>
void backwardB(const Dims& d, const T* x, const T* dy, const T* mask, const float* gamma,
               const float* saveMean, const float* saveInvStd, T* dx, float* dgamma, float* dbeta) {
    const int64_t rs = PlaneGeometry<B>(d).rowStride();
    std::vector<double> dySums(static_cast<std::size_t>(d.n * d.c)), dyXcSums(dySums.size());
    forEachPlane<B>(d, [&](int64_t at, int64_t c0, int64_t p) {
        const auto slot = static_cast<std::size_t>(p * B);
        gradientSumsPlane<B, T, Masked>(x + at, dy + at, Masked ? mask + at : nullptr, d.hw, rs,
                                        saveMean + c0, &dySums[slot], &dyXcSums[slot]);
    });
    const std::vector<double> sumDy = channelSums<B>(d, dySums),
                              sumDyXc = channelSums<B>(d, dyXcSums);
    std::vector<float> k(static_cast<std::size_t>(d.c)), a(k.size()), b(k.size());
    const auto count = static_cast<float>(d.n * d.hw);
    for (int64_t ch = 0; ch < d.c; ++ch) {
        const auto c = static_cast<std::size_t>(ch);
        const double sumDyXhat = sumDyXc[c] * saveInvStd[ch];
        dgamma[ch] += static_cast<float>(sumDyXhat);
        dbeta[ch] += static_cast<float>(sumDy[c]);
        k[c] = gamma[ch] * saveInvStd[ch] / count;
        a[c] = static_cast<float>(sumDy[c]);
        b[c] = static_cast<float>(sumDyXhat);
    }
    forEachPlane<B>(d, [&](int64_t at, int64_t c0, int64_t) {
        const BackwardCoefficients coefficients{&k[c0],        &a[c0],          &b[c0],
                                                saveMean + c0, saveInvStd + c0, count};
        inputGradientPlane<B, T, Masked>(x + at, dy + at, Masked ? mask + at : nullptr, d.hw, rs,
                                         coefficients, dx + at);
    });
}

// The channel group of a layout: its block, or for channels-last the widest of 16 and 8 that
// divides c (0 when neither does).
int groupWidth(const Dims& d) {
    if (d.layout != kChannelsLast)
        return d.layout;
    return d.c % 16 == 0 ? 16 : d.c % 8 == 0 ? 8 : 0;
}

// Calls f with the group width and the stored type as template arguments.
template <typename F> void dispatch(const Dims& d, DType t, F f) {
    const bool bf16 = t == DType::BF16;
    const int width = groupWidth(d);
    if (width == 16 && bf16)
        f(std::integral_constant<int, 16>{}, uint16_t{});
    else if (width == 16)
        f(std::integral_constant<int, 16>{}, float{});
    else if (bf16)
        f(std::integral_constant<int, 8>{}, uint16_t{});
    else
        f(std::integral_constant<int, 8>{}, float{});
}

} // namespace

bool supports(const Dims& d) {
    const int width = groupWidth(d);
    return (width == 8 || width == 16) && d.c % width == 0;
}

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

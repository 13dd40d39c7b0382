// CpuBackend max and average pooling, one channel plane per task, over plain NCHW or a
// channel-blocked layout (which the output keeps). Max-pooling indices are plane-local
// positions (h * W + w), the same in either layout.
#include "backend/cpu/cpubackend.h"

#include "backend/cpu/cpulayout.h"
#include "backend/cpu/parallel.h"
#include "core/errors.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace tb {

namespace {

// The geometry, the full-size tensor (x or dx), the pooled one (y or dy) and, for max pooling,
// i32 indices of the pooled size.
void checkPool(const PoolDesc& d, const Tensor& full, const Tensor& pooled, const Tensor& indices,
               const char* op) {
    if (!d.valid())
        throw Error(std::string(op) + ": invalid pooling geometry");
    const int64_t planes = d.n * d.c;
    if (full.numel() != planes * d.h * d.w || pooled.numel() != planes * d.outH() * d.outW())
        throw Error(std::string(op) + ": tensors do not match the pooling shape");
    if (d.kind == PoolKind::Max &&
        (indices.dtype() != DType::I32 || indices.numel() != pooled.numel()))
        throw Error(std::string(op) + ": indices must be i32 of the pooled size");
}

// The input rows [h0, h1) and columns [w0, w1) that output (i, j) reads, clipped to the
// plane, and the factor an average multiplies their sum by: 1 / the full window (padding
// included) for a fixed window, 1 / the bin's own area for adaptive pooling.
struct Window {
    int64_t h0, h1, w0, w1;
    float scale;
};

Window windowOf(const PoolDesc& d, int64_t i, int64_t j) {
    if (d.adaptive()) {
        Window win{adaptiveBegin(i, d.h, d.adaptiveH), adaptiveEnd(i, d.h, d.adaptiveH),
                   adaptiveBegin(j, d.w, d.adaptiveW), adaptiveEnd(j, d.w, d.adaptiveW), 0.0f};
        win.scale = 1.0f / static_cast<float>((win.h1 - win.h0) * (win.w1 - win.w0));
        return win;
    }
    const int64_t h0 = i * d.stride - d.pad, w0 = j * d.stride - d.pad;
    return {std::max<int64_t>(h0, 0), std::min(h0 + d.kh, d.h), std::max<int64_t>(w0, 0),
            std::min(w0 + d.kw, d.w), 1.0f / static_cast<float>(d.kh * d.kw)};
}

// Max pooling with 2x2 windows at stride 2 and no padding (every CNN in the zoo): four loads
// per output, no bounds checks and no branches (the comparisons of random data mispredict half
// the time), so the loop over a row vectorises. The comparisons are the general loop's, in
// its order, so ties and NaNs pick the same index. Not TB_MULTIVERSION: GCC's AVX-512 clone
// gathers the stride-2 loads and measured 25% slower on LeNet-5 than this baseline loop.
void maxPool2x2Plane(const float* in, int64_t w, int64_t es, float* out, int64_t oh, int64_t ow,
                     int64_t os, int32_t* idx) {
    for (int64_t i = 0; i < oh; ++i) {
        const float* row = in + 2 * i * w * es;
        const auto rowFirst = static_cast<int32_t>(2 * i * w);
        const auto down = static_cast<int32_t>(w);
#pragma omp simd
        for (int64_t j = 0; j < ow; ++j) {
            const float* p = row + 2 * j * es;
            float best = p[0];
            int32_t k = 0;
            const float v1 = p[es], v2 = p[w * es], v3 = p[(w + 1) * es];
            const bool t1 = v1 > best || v1 != v1;
            best = t1 ? v1 : best;
            k = t1 ? 1 : k;
            const bool t2 = v2 > best || v2 != v2;
            best = t2 ? v2 : best;
            k = t2 ? down : k;
            const bool t3 = v3 > best || v3 != v3;
            best = t3 ? v3 : best;
            k = t3 ? down + 1 : k;
            out[(i * ow + j) * os] = best;
            idx[i * ow + j] = rowFirst + static_cast<int32_t>(2 * j) + k;
        }
    }
}

} // namespace

void CpuBackend::poolForward(const PoolDesc& d, const Tensor& x, Tensor& y, Tensor& indices) {
    checkPool(d, x, y, indices, "poolForward");
    const int64_t oh = d.outH(), ow = d.outW(), planes = d.n * d.c;
    const Tensor xf = widened(x, 0);
    Tensor yf = f32Target(y, 1);
    setLayout(yf, planeOutputLayout(layoutOf(x) ? layoutOf(x) : m_convBlock, y, mayBlock(y)));
    const PlaneIndex inPlanes{d.c, d.h * d.w, layoutOf(xf)}, outPlanes{d.c, oh * ow, layoutOf(yf)};
    const int64_t es = inPlanes.stride(), os = outPlanes.stride();
    const float* px = xf.data<float>();
    float* py = yf.data<float>();
    int32_t* pidx = d.kind == PoolKind::Max ? indices.data<int32_t>() : nullptr;
    const bool twoByTwo =
        pidx && !d.adaptive() && d.kh == 2 && d.kw == 2 && d.stride == 2 && d.pad == 0;
    parallelFor(
        planes,
        [&](int64_t plane) {
            const float* in = px + inPlanes.base(plane);
            float* out = py + outPlanes.base(plane);
            if (twoByTwo) {
                maxPool2x2Plane(in, d.w, es, out, oh, ow, os, pidx + plane * oh * ow);
                return;
            }
            for (int64_t i = 0; i < oh; ++i) {
                for (int64_t j = 0; j < ow; ++j) {
                    const Window win = windowOf(d, i, j);
                    float best = -std::numeric_limits<float>::infinity();
                    int64_t bestIdx = -1;
                    float sum = 0.0f;
                    for (int64_t hh = win.h0; hh < win.h1; ++hh) {
                        for (int64_t ww = win.w0; ww < win.w1; ++ww) {
                            const float v = in[(hh * d.w + ww) * es];
                            sum += v;
                            // The first maximum wins; a NaN propagates (as PyTorch).
                            if (v > best || bestIdx < 0 || std::isnan(v)) {
                                best = v;
                                bestIdx = hh * d.w + ww;
                            }
                        }
                    }
                    if (pidx) {
                        out[(i * ow + j) * os] = best;
                        pidx[plane * oh * ow + i * ow + j] = static_cast<int32_t>(bestIdx);
                    } else {
                        out[(i * ow + j) * os] = sum * win.scale;
                    }
                }
            }
        },
        4);
    storeF32(yf, y);
}

void CpuBackend::poolBackward(const PoolDesc& d, const Tensor& x, const Tensor& dy,
                              const Tensor& indices, Tensor& dx) {
    checkPool(d, dx, dy, indices, "poolBackward");
    const int64_t oh = d.outH(), ow = d.outW(), planes = d.n * d.c;
    const Tensor dyf = widened(dy, 0);
    Tensor dxf = f32Target(dx, 1);
    // dy is in the layout of the convolution after the pooling; dx goes to the layer before it,
    // which kept x as it is (an AVX2 machine writes a 1-channel convolution's output NHWC and
    // the next one's nChw8c).
    setLayout(dxf, planeOutputLayout(layoutOf(x), dx, mayBlock(dx)));
    const PlaneIndex fullPlanes{d.c, d.h * d.w, layoutOf(dxf)},
        pooledPlanes{d.c, oh * ow, layoutOf(dyf)};
    const int64_t es = fullPlanes.stride(), gs = pooledPlanes.stride();
    const float* pdy = dyf.data<float>();
    float* pdx = dxf.data<float>();
    const int32_t* pidx = d.kind == PoolKind::Max ? indices.data<int32_t>() : nullptr;
    parallelFor(
        planes,
        [&](int64_t plane) {
            float* out = pdx + fullPlanes.base(plane);
            const float* g = pdy + pooledPlanes.base(plane);
            for (int64_t i = 0; i < d.h * d.w; ++i)
                out[i * es] = 0.0f;
            for (int64_t i = 0; i < oh; ++i) {
                for (int64_t j = 0; j < ow; ++j) {
                    const float v = g[(i * ow + j) * gs];
                    if (pidx) {
                        out[pidx[plane * oh * ow + i * ow + j] * es] += v;
                        continue;
                    }
                    const Window win = windowOf(d, i, j);
                    for (int64_t hh = win.h0; hh < win.h1; ++hh)
                        for (int64_t ww = win.w0; ww < win.w1; ++ww)
                            out[(hh * d.w + ww) * es] += v * win.scale;
                }
            }
        },
        4);
    storeF32(dxf, dx);
}

} // namespace tb

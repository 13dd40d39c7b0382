// CpuBackend elementwise ops: activations, dropout, residual add, the option-A shortcut.
// Activations and the add keep a channel-blocked layout their operands share (the values'
// order does not matter to them), the shortcut keeps its input's; dropout works on plain NCHW.
#include "backend/cpu/cpubackend.h"

#include "backend/cpu/cpulayout.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/activation_math.h"
#include "backend/kernels/random_math.h"
#include "core/errors.h"

namespace tb {

namespace {

void requireSameSize(const Tensor& a, const Tensor& b, const char* op) {
    if (a.numel() != b.numel())
        throw Error(std::string(op) + ": sizes differ (" + a.shape().toString() + " vs " +
                    b.shape().toString() + ")");
}

// The layout an elementwise op can keep: its operands' shared layout when the output may hold
// it, else 0 (the op then reads every operand plain).
int sharedLayout(const Tensor& out, std::initializer_list<const Tensor*> operands) {
    const int layout = layoutOf(**operands.begin());
    for (const Tensor* t : operands)
        if (layoutOf(*t) != layout || !(t->shape() == out.shape()))
            return 0;
    return layout;
}

} // namespace

void CpuBackend::activationForward(Activation a, float alpha, const Tensor& x, Tensor& y) {
    requireSameSize(x, y, "activationForward");
    const int layout = mayBlock(y) ? sharedLayout(y, {&x}) : 0;
    const Tensor xf = layout ? widened(x, 0) : asF32(x, 0);
    Tensor yf = f32Target(y, 1);
    setLayout(yf, layout);
    const float* px = xf.data<float>();
    float* py = yf.data<float>();
    if (a == Activation::ReLU) {
        // The common case gets a loop the compiler vectorises.
        parallelChunks(x.numel(), [=](int64_t begin, int64_t end) {
#pragma omp simd
            for (int64_t i = begin; i < end; ++i)
                py[i] = px[i] > 0.0f ? px[i] : 0.0f;
        });
    } else {
        parallelFor(
            x.numel(), [&](int64_t i) { py[i] = math::activate(a, alpha, px[i]); }, 4096);
    }
    storeF32(yf, y);
}

void CpuBackend::activationBackward(Activation a, float alpha, const Tensor& x, const Tensor& dy,
                                    Tensor& dx) {
    requireSameSize(x, dy, "activationBackward");
    const int layout = mayBlock(dx) ? sharedLayout(dx, {&x, &dy}) : 0;
    const Tensor xf = layout ? widened(x, 0) : asF32(x, 0);
    const Tensor dyf = layout ? widened(dy, 1) : asF32(dy, 1);
    Tensor dxf = f32Target(dx, 2);
    setLayout(dxf, layout);
    const float* px = xf.data<float>();
    const float* pdy = dyf.data<float>();
    float* pdx = dxf.data<float>();
    if (a == Activation::ReLU) {
        parallelChunks(x.numel(), [=](int64_t begin, int64_t end) {
        // dy is loaded unconditionally: a load under the condition kept the loop scalar.
#pragma omp simd
            for (int64_t i = begin; i < end; ++i) {
                const float g = pdy[i];
                pdx[i] = px[i] > 0.0f ? g : 0.0f;
            }
        });
    } else {
        parallelFor(
            x.numel(), [&](int64_t i) { pdx[i] = math::activateBackward(a, alpha, px[i], pdy[i]); },
            4096);
    }
    storeF32(dxf, dx);
}

void CpuBackend::dropoutForward(const Tensor& x, float p, uint64_t seed, Tensor& y, Tensor& mask) {
    requireSameSize(x, y, "dropoutForward");
    const Tensor xf = asF32(x, 0);
    Tensor yf = f32Target(y, 1);
    const float* px = xf.data<float>();
    float* py = yf.data<float>();
    uint8_t* pm = mask.data<uint8_t>();
    const float keepScale = 1.0f / (1.0f - p);
    parallelFor(x.numel(), [&](int64_t i) {
        const bool keep = math::dropoutKeep(seed, static_cast<uint64_t>(i), p);
        pm[i] = keep ? 1 : 0;
        py[i] = keep ? px[i] * keepScale : 0.0f;
    });
    storeF32(yf, y);
}

void CpuBackend::dropoutBackward(const Tensor& dy, const Tensor& mask, float p, Tensor& dx) {
    const Tensor dyf = asF32(dy, 0);
    Tensor dxf = f32Target(dx, 1);
    const float* pdy = dyf.data<float>();
    const uint8_t* pm = mask.data<uint8_t>();
    float* pdx = dxf.data<float>();
    const float keepScale = 1.0f / (1.0f - p);
    parallelChunks(dy.numel(), [=](int64_t begin, int64_t end) {
#pragma omp simd
        for (int64_t i = begin; i < end; ++i) {
            const float g = pdy[i] * keepScale; // unconditional, as in the ReLU backward
            pdx[i] = pm[i] ? g : 0.0f;
        }
    });
    storeF32(dxf, dx);
}

void CpuBackend::add(const Tensor& a, const Tensor& b, Tensor& y) {
    requireSameSize(a, b, "add");
    requireSameSize(a, y, "add");
    const int layout = mayBlock(y) ? sharedLayout(y, {&a, &b}) : 0;
    const Tensor af = layout ? widened(a, 0) : asF32(a, 0);
    const Tensor bf = layout ? widened(b, 1) : asF32(b, 1);
    Tensor yf = f32Target(y, 2);
    setLayout(yf, layout);
    const float* pa = af.data<float>();
    const float* pb = bf.data<float>();
    float* py = yf.data<float>();
    parallelChunks(a.numel(), [=](int64_t begin, int64_t end) {
#pragma omp simd
        for (int64_t i = begin; i < end; ++i)
            py[i] = pa[i] + pb[i];
    });
    storeF32(yf, y);
}

void CpuBackend::shortcutPadForward(const Tensor& x, int64_t stride, int64_t padC, Tensor& y) {
    const Tensor xf = widened(x, 0);
    Tensor yf = f32Target(y, 1);
    setLayout(yf, planeOutputLayout(layoutOf(x) ? layoutOf(x) : m_convBlock, y, mayBlock(y)));
    const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
    const int64_t oc = y.dim(1), oh = y.dim(2), ow = y.dim(3);
    if (oc != c + 2 * padC || oh != (h + stride - 1) / stride || ow != (w + stride - 1) / stride)
        throw Error("shortcutPadForward: output shape " + y.shape().toString() + " does not match");
    const float* px = xf.data<float>();
    float* py = yf.data<float>();
    const PlaneIndex inPlanes{c, h * w, layoutOf(xf)}, outPlanes{oc, oh * ow, layoutOf(yf)};
    const int64_t es = inPlanes.stride(), os = outPlanes.stride();
    parallelFor(
        n * oc,
        [&](int64_t nc) {
            const int64_t in = nc / oc, ic = nc % oc - padC;
            float* out = py + outPlanes.base(nc);
            if (ic < 0 || ic >= c) {
                for (int64_t i = 0; i < oh * ow; ++i)
                    out[i * os] = 0.0f;
                return;
            }
            const float* src = px + inPlanes.base(in * c + ic);
            for (int64_t i = 0; i < oh; ++i)
                for (int64_t j = 0; j < ow; ++j)
                    out[(i * ow + j) * os] = src[(i * stride * w + j * stride) * es];
        },
        64);
    storeF32(yf, y);
}

void CpuBackend::shortcutPadBackward(const Tensor& dy, int64_t stride, int64_t padC, Tensor& dx) {
    const Tensor dyf = widened(dy, 0);
    Tensor dxf = f32Target(dx, 1);
    setLayout(dxf, planeOutputLayout(layoutOf(dy) ? layoutOf(dy) : m_convBlock, dx, mayBlock(dx)));
    const int64_t n = dx.dim(0), c = dx.dim(1), h = dx.dim(2), w = dx.dim(3);
    const int64_t oc = dy.dim(1), oh = dy.dim(2), ow = dy.dim(3);
    const float* pdy = dyf.data<float>();
    float* pdx = dxf.data<float>();
    const PlaneIndex inPlanes{oc, oh * ow, layoutOf(dyf)}, outPlanes{c, h * w, layoutOf(dxf)};
    const int64_t es = inPlanes.stride(), os = outPlanes.stride();
    parallelFor(
        n * c,
        [&](int64_t nc) {
            const int64_t in = nc / c, ic = nc % c;
            float* out = pdx + outPlanes.base(nc);
            for (int64_t i = 0; i < h * w; ++i)
                out[i * os] = 0.0f;
            const float* src = pdy + inPlanes.base(in * oc + ic + padC);
            for (int64_t i = 0; i < oh; ++i)
                for (int64_t j = 0; j < ow; ++j)
                    out[(i * stride * w + j * stride) * os] = src[(i * ow + j) * es];
        },
        64);
    storeF32(dxf, dx);
}

} // namespace tb

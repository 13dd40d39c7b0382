// CpuBackend elementwise ops: activations, dropout, residual add, the option-A shortcut.
// Activations and the add work in whatever layout their operands share (the values' order
// does not matter to them), on f32 or bf16 in place; the shortcut keeps its input's layout;
// dropout works on plain NCHW.
#include "backend/cpu/cpubackend.h"

#include "backend/cpu/cpulayout.h"
#include "backend/cpu/elementaccess.h"
#include "backend/cpu/multiversion.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/vectormath.h"
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

// The layout an elementwise op can work in directly: the one its operands share (0 when all
// are plain), or -1 when they differ or the output cannot hold a blocked layout (the op then
// reads every operand plain).
int sharedLayout(const Tensor& out, bool outMayBlock,
                 std::initializer_list<const Tensor*> operands) {
    const int layout = layoutOf(**operands.begin());
    for (const Tensor* t : operands)
        if (layoutOf(*t) != layout || !(t->shape() == out.shape()))
            return -1;
    return layout != 0 && !outMayBlock ? -1 : layout;
}

// Whether every tensor stores `t`'s dtype, and that is f32 or bf16, so a typed kernel reads
// and writes them in place.
bool storedAlike(std::initializer_list<const Tensor*> tensors) {
    const DType t = (*tensors.begin())->dtype();
    if (t != DType::F32 && t != DType::BF16)
        return false;
    for (const Tensor* x : tensors)
        if (x->dtype() != t)
            return false;
    return true;
}

// f(T{}) with T the stored type of a tensor storedAlike accepted.
template <typename F> void withStoredType(DType t, F f) {
    if (t == DType::BF16)
        f(uint16_t{});
    else
        f(float{});
}

template <typename T>
TB_MULTIVERSION void reluForwardChunk(const T* px, T* py, int64_t begin, int64_t end) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) {
        const float v = loadValue(px[i]);
        storeValue(py[i], v > 0.0f ? v : 0.0f);
    }
}

template <typename T>
TB_MULTIVERSION void reluBackwardChunk(const T* px, const T* pdy, T* pdx, int64_t begin,
                                       int64_t end) {
    // dy is loaded unconditionally: a load under the condition kept the loop scalar.
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) {
        const float g = loadValue(pdy[i]);
        storeValue(pdx[i], loadValue(px[i]) > 0.0f ? g : 0.0f);
    }
}

template <typename T, bool Relu>
TB_MULTIVERSION void addChunk(const T* pa, const T* pb, T* py, int64_t begin, int64_t end) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) {
        const float v = loadValue(pa[i]) + loadValue(pb[i]);
        storeValue(py[i], Relu ? (v > 0.0f ? v : 0.0f) : v);
    }
}

// GPT's GELU (the tanh form) and its gradient, the math of activation_math.h's geluTanh and
// geluTanhGrad with a tanh that vectorises: libm's tanhf made them a tenth of a GPT's step.
inline float geluTanhArgument(float x) {
    return math::kSqrt2OverPi * (x + math::kGeluCubic * x * x * x);
}

template <typename T>
TB_MULTIVERSION void geluTanhForwardChunk(const T* px, T* py, int64_t begin, int64_t end) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) {
        const float x = loadValue(px[i]);
        storeValue(py[i], 0.5f * x * (1.0f + vmath::tanh(geluTanhArgument(x))));
    }
}

template <typename T>
TB_MULTIVERSION void geluTanhBackwardChunk(const T* px, const T* pdy, T* pdx, int64_t begin,
                                           int64_t end) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) {
        const float x = loadValue(px[i]);
        const float t = vmath::tanh(geluTanhArgument(x));
        const float grad = 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * math::kSqrt2OverPi *
                                                   (1.0f + 3.0f * math::kGeluCubic * x * x);
        storeValue(pdx[i], loadValue(pdy[i]) * grad);
    }
}

// YOLOv8's SiLU, x sigmoid(x), and its gradient with a sigmoid that vectorises.
template <typename T>
TB_MULTIVERSION void siluForwardChunk(const T* px, T* py, int64_t begin, int64_t end) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) {
        const float x = loadValue(px[i]);
        storeValue(py[i], x * vmath::sigmoid(x));
    }
}

template <typename T>
TB_MULTIVERSION void siluBackwardChunk(const T* px, const T* pdy, T* pdx, int64_t begin,
                                       int64_t end) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) {
        const float x = loadValue(px[i]);
        const float s = vmath::sigmoid(x);
        storeValue(pdx[i], loadValue(pdy[i]) * s * (1.0f + x * (1.0f - s)));
    }
}

template <typename T>
void activationForwardKernel(Activation a, float alpha, const T* px, T* py, int64_t n) {
    if (a == Activation::ReLU) { // the common case gets a loop the compiler vectorises
        parallelChunks(n,
                       [=](int64_t begin, int64_t end) { reluForwardChunk(px, py, begin, end); });
    } else if (a == Activation::GELUTanh) {
        parallelChunks(
            n, [=](int64_t begin, int64_t end) { geluTanhForwardChunk(px, py, begin, end); }, 4096);
    } else if (a == Activation::SiLU) {
        parallelChunks(
            n, [=](int64_t begin, int64_t end) { siluForwardChunk(px, py, begin, end); }, 4096);
    } else {
        parallelFor(
            n, [&](int64_t i) { storeValue(py[i], math::activate(a, alpha, loadValue(px[i]))); },
            4096);
    }
}

template <typename T>
void activationBackwardKernel(Activation a, float alpha, const T* px, const T* pdy, T* pdx,
                              int64_t n) {
    if (a == Activation::ReLU) {
        parallelChunks(
            n, [=](int64_t begin, int64_t end) { reluBackwardChunk(px, pdy, pdx, begin, end); });
    } else if (a == Activation::GELUTanh) {
        parallelChunks(
            n, [=](int64_t begin, int64_t end) { geluTanhBackwardChunk(px, pdy, pdx, begin, end); },
            4096);
    } else if (a == Activation::SiLU) {
        parallelChunks(
            n, [=](int64_t begin, int64_t end) { siluBackwardChunk(px, pdy, pdx, begin, end); },
            4096);
    } else {
        parallelFor(
            n,
            [&](int64_t i) {
                storeValue(pdx[i],
                           math::activateBackward(a, alpha, loadValue(px[i]), loadValue(pdy[i])));
            },
            4096);
    }
}

template <typename T, bool Relu = false>
void addKernel(const T* pa, const T* pb, T* py, int64_t n) {
    parallelChunks(n,
                   [=](int64_t begin, int64_t end) { addChunk<T, Relu>(pa, pb, py, begin, end); });
}

} // namespace

void CpuBackend::activationForward(Activation a, float alpha, const Tensor& x, Tensor& y) {
    requireSameSize(x, y, "activationForward");
    if (const int layout = sharedLayout(y, mayBlock(y), {&x});
        layout >= 0 && storedAlike({&x, &y})) {
        withStoredType(x.dtype(), [&](auto type) {
            using T = decltype(type);
            activationForwardKernel(a, alpha, static_cast<const T*>(x.raw()),
                                    static_cast<T*>(y.raw()), x.numel());
        });
        setLayout(y, layout);
        return;
    }
    const Tensor xf = asF32(x, 0);
    Tensor yf = f32Target(y, 1);
    activationForwardKernel(a, alpha, xf.data<float>(), yf.data<float>(), x.numel());
    storeF32(yf, y);
}

void CpuBackend::activationBackward(Activation a, float alpha, const Tensor& x, const Tensor& dy,
                                    Tensor& dx) {
    requireSameSize(x, dy, "activationBackward");
    if (const int layout = sharedLayout(dx, mayBlock(dx), {&x, &dy});
        layout >= 0 && storedAlike({&x, &dy, &dx})) {
        withStoredType(x.dtype(), [&](auto type) {
            using T = decltype(type);
            activationBackwardKernel(a, alpha, static_cast<const T*>(x.raw()),
                                     static_cast<const T*>(dy.raw()), static_cast<T*>(dx.raw()),
                                     x.numel());
        });
        setLayout(dx, layout);
        return;
    }
    const Tensor xf = asF32(x, 0);
    const Tensor dyf = asF32(dy, 1);
    Tensor dxf = f32Target(dx, 2);
    activationBackwardKernel(a, alpha, xf.data<float>(), dyf.data<float>(), dxf.data<float>(),
                             x.numel());
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
    if (const int layout = sharedLayout(y, mayBlock(y), {&a, &b});
        layout >= 0 && storedAlike({&a, &b, &y})) {
        withStoredType(a.dtype(), [&](auto type) {
            using T = decltype(type);
            addKernel(static_cast<const T*>(a.raw()), static_cast<const T*>(b.raw()),
                      static_cast<T*>(y.raw()), a.numel());
        });
        setLayout(y, layout);
        return;
    }
    const Tensor af = asF32(a, 0);
    const Tensor bf = asF32(b, 1);
    Tensor yf = f32Target(y, 2);
    addKernel(af.data<float>(), bf.data<float>(), yf.data<float>(), a.numel());
    storeF32(yf, y);
}

void CpuBackend::addRelu(const Tensor& a, const Tensor& b, Tensor& y) {
    requireSameSize(a, b, "addRelu");
    requireSameSize(a, y, "addRelu");
    const int layout = sharedLayout(y, mayBlock(y), {&a, &b});
    if (layout < 0 || !storedAlike({&a, &b, &y})) {
        Backend::addRelu(a, b, y);
        return;
    }
    withStoredType(a.dtype(), [&](auto type) {
        using T = decltype(type);
        addKernel<T, true>(static_cast<const T*>(a.raw()), static_cast<const T*>(b.raw()),
                           static_cast<T*>(y.raw()), a.numel());
    });
    setLayout(y, layout);
}

namespace {

// The shortcut only moves values (and writes zeros, all-zero bits in every float type), so it
// copies elements of the stored width E in whichever layouts in and out have.
struct ShortcutGeometry {
    int64_t n, c, h, w; // the block input
    int64_t oc, oh, ow; // the shortcut's output
    int64_t stride, padC;
};

template <typename E>
void shortcutForwardKernel(const E* px, E* py, const ShortcutGeometry& g,
                           const PlaneIndex& inPlanes, const PlaneIndex& outPlanes) {
    const auto [n, c, h, w, oc, oh, ow, stride, padC] = g;
    (void)h; // the subsampled rows are the output's
    const int64_t es = inPlanes.stride(), os = outPlanes.stride();
    parallelFor(
        n * oc,
        [&](int64_t nc) {
            const int64_t in = nc / oc, ic = nc % oc - padC;
            E* out = py + outPlanes.base(nc);
            if (ic < 0 || ic >= c) {
                for (int64_t i = 0; i < oh * ow; ++i)
                    out[i * os] = E{0};
                return;
            }
            const E* src = px + inPlanes.base(in * c + ic);
            for (int64_t i = 0; i < oh; ++i)
                for (int64_t j = 0; j < ow; ++j)
                    out[(i * ow + j) * os] = src[(i * stride * w + j * stride) * es];
        },
        64);
}

template <typename E>
void shortcutBackwardKernel(const E* pdy, E* pdx, const ShortcutGeometry& g,
                            const PlaneIndex& inPlanes, const PlaneIndex& outPlanes) {
    const auto [n, c, h, w, oc, oh, ow, stride, padC] = g;
    const int64_t es = inPlanes.stride(), os = outPlanes.stride();
    parallelFor(
        n * c,
        [&](int64_t nc) {
            const int64_t in = nc / c, ic = nc % c;
            E* out = pdx + outPlanes.base(nc);
            for (int64_t i = 0; i < h * w; ++i)
                out[i * os] = E{0};
            const E* src = pdy + inPlanes.base(in * oc + ic + padC);
            for (int64_t i = 0; i < oh; ++i)
                for (int64_t j = 0; j < ow; ++j)
                    out[(i * stride * w + j * stride) * os] = src[(i * ow + j) * es];
        },
        64);
}

} // namespace

void CpuBackend::shortcutPadForward(const Tensor& x, int64_t stride, int64_t padC, Tensor& y) {
    const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
    const int64_t oc = y.dim(1), oh = y.dim(2), ow = y.dim(3);
    if (oc != c + 2 * padC || oh != (h + stride - 1) / stride || ow != (w + stride - 1) / stride)
        throw Error("shortcutPadForward: output shape " + y.shape().toString() + " does not match");
    if (x.dtype() != y.dtype())
        throw Error("shortcutPadForward: x and y differ in dtype");
    setLayout(y, planeOutputLayout(layoutOf(x) ? layoutOf(x) : m_convBlock, y, mayBlock(y)));
    const PlaneIndex inPlanes{c, h * w, layoutOf(x)}, outPlanes{oc, oh * ow, layoutOf(y)};
    withElementWidth(x.dtype(), [&](auto element) {
        using E = decltype(element);
        shortcutForwardKernel(static_cast<const E*>(x.raw()), static_cast<E*>(y.raw()),
                              {n, c, h, w, oc, oh, ow, stride, padC}, inPlanes, outPlanes);
    });
}

void CpuBackend::shortcutPadBackward(const Tensor& dy, int64_t stride, int64_t padC, Tensor& dx) {
    const int64_t n = dx.dim(0), c = dx.dim(1), h = dx.dim(2), w = dx.dim(3);
    const int64_t oc = dy.dim(1), oh = dy.dim(2), ow = dy.dim(3);
    if (dy.dtype() != dx.dtype())
        throw Error("shortcutPadBackward: dy and dx differ in dtype");
    setLayout(dx, planeOutputLayout(layoutOf(dy) ? layoutOf(dy) : m_convBlock, dx, mayBlock(dx)));
    const PlaneIndex inPlanes{oc, oh * ow, layoutOf(dy)}, outPlanes{c, h * w, layoutOf(dx)};
    withElementWidth(dy.dtype(), [&](auto element) {
        using E = decltype(element);
        shortcutBackwardKernel(static_cast<const E*>(dy.raw()), static_cast<E*>(dx.raw()),
                               {n, c, h, w, oc, oh, ow, stride, padC}, inPlanes, outPlanes);
    });
}

} // namespace tb

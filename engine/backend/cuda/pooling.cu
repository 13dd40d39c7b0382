// Max and average pooling over NCHW with our own kernels, so max pooling yields the i32 argmax
// indices the op set wants (h * W + w inside the input plane, as PyTorch's max_pool2d).
#include "cudacheck.h"
#include "dtypeio.cuh"
#include "kernels.h"

#include <cmath>

namespace tb::cuda {

namespace {

struct PoolGeometry {
    int64_t planes, h, w, oh, ow, kh, kw, stride, pad;
    bool max, adaptive;
};

PoolGeometry geometryOf(const PoolDesc& d) {
    return {d.n * d.c,   d.h,  d.w,      d.outH(), d.outW(),
            d.kh,        d.kw, d.stride, d.pad,    d.kind == PoolKind::Max,
            d.adaptive()};
}

// The input rows [h0, h1) x columns [w0, w1) output (oh, ow) reads, clipped to the plane, and
// the factor its average multiplies the sum by (as the CPU backend's windowOf).
struct Window {
    int64_t h0, h1, w0, w1;
    float scale;
};

__device__ Window windowOf(const PoolGeometry& g, int64_t oh, int64_t ow) {
    if (g.adaptive) {
        const int64_t h0 = adaptiveBegin(oh, g.h, g.oh), h1 = adaptiveEnd(oh, g.h, g.oh);
        const int64_t w0 = adaptiveBegin(ow, g.w, g.ow), w1 = adaptiveEnd(ow, g.w, g.ow);
        return {h0, h1, w0, w1, 1.0f / static_cast<float>((h1 - h0) * (w1 - w0))};
    }
    const int64_t h0 = oh * g.stride - g.pad, w0 = ow * g.stride - g.pad;
    return {h0 < 0 ? 0 : h0, h0 + g.kh < g.h ? h0 + g.kh : g.h, w0 < 0 ? 0 : w0,
            w0 + g.kw < g.w ? w0 + g.kw : g.w, 1.0f / static_cast<float>(g.kh * g.kw)};
}

// One thread per output element y(plane, oh, ow).
template <typename Io>
__global__ void poolForwardKernel(const typename Io::Storage* x, typename Io::Storage* y,
                                  int32_t* indices, PoolGeometry g) {
    const int64_t total = g.planes * g.oh * g.ow;
    TB_GRID_STRIDE(i, total) {
        const int64_t ow = i % g.ow;
        const int64_t oh = (i / g.ow) % g.oh;
        const int64_t plane = i / (g.ow * g.oh);
        const Window win = windowOf(g, oh, ow);
        const int64_t base = plane * g.h * g.w;
        if (g.max) {
            // As PyTorch and the CPU: the first maximum wins (the first element even when it
            // is -inf), a NaN always propagates.
            float best = -INFINITY;
            int64_t bestIndex = -1;
            for (int64_t ih = win.h0; ih < win.h1; ++ih) {
                for (int64_t iw = win.w0; iw < win.w1; ++iw) {
                    const float v = Io::load(x, base + ih * g.w + iw);
                    if (v > best || bestIndex < 0 || isnan(v)) {
                        best = v;
                        bestIndex = ih * g.w + iw;
                    }
                }
            }
            Io::store(y, i, best);
            indices[i] = static_cast<int32_t>(bestIndex);
        } else {
            float sum = 0.0f;
            for (int64_t ih = win.h0; ih < win.h1; ++ih)
                for (int64_t iw = win.w0; iw < win.w1; ++iw)
                    sum += Io::load(x, base + ih * g.w + iw);
            Io::store(y, i, sum * win.scale);
        }
    }
}

// One thread per input element dx(plane, ih, iw): gathers from every window that covers it, in
// increasing (oh, ow) order, which is the order a CPU scatter loop adds in.
template <typename Io>
__global__ void poolBackwardKernel(const typename Io::Storage* dy, const int32_t* indices,
                                   typename Io::Storage* dx, PoolGeometry g) {
    const int64_t total = g.planes * g.h * g.w;
    TB_GRID_STRIDE(i, total) {
        const int64_t iw = i % g.w;
        const int64_t ih = (i / g.w) % g.h;
        const int64_t plane = i / (g.w * g.h);
        // The outputs whose windows cover (ih, iw): rows [ohs, ohe), columns [ows, owe).
        int64_t ohs, ohe, ows, owe;
        if (g.adaptive) {
            // Bin oh covers ih iff floor(oh * h / OH) <= ih < ceil((oh + 1) * h / OH).
            ohs = adaptiveBegin(ih, g.oh, g.h), ohe = adaptiveEnd(ih, g.oh, g.h);
            ows = adaptiveBegin(iw, g.ow, g.w), owe = adaptiveEnd(iw, g.ow, g.w);
        } else {
            // Windows oh with oh*stride - pad <= ih < oh*stride - pad + kh.
            ohs = ih + g.pad < g.kh ? 0 : (ih + g.pad - g.kh) / g.stride + 1;
            ohe = (ih + g.pad) / g.stride + 1 < g.oh ? (ih + g.pad) / g.stride + 1 : g.oh;
            ows = iw + g.pad < g.kw ? 0 : (iw + g.pad - g.kw) / g.stride + 1;
            owe = (iw + g.pad) / g.stride + 1 < g.ow ? (iw + g.pad) / g.stride + 1 : g.ow;
        }
        const int64_t outBase = plane * g.oh * g.ow;
        const int32_t self = static_cast<int32_t>(ih * g.w + iw);
        float sum = 0.0f;
        for (int64_t oh = ohs; oh < ohe; ++oh) {
            for (int64_t ow = ows; ow < owe; ++ow) {
                const int64_t o = outBase + oh * g.ow + ow;
                if (!g.max)
                    sum += Io::load(dy, o) * windowOf(g, oh, ow).scale;
                else if (indices[o] == self)
                    sum += Io::load(dy, o);
            }
        }
        Io::store(dx, i, sum);
    }
}

// The caller has checked PoolDesc::valid(); indices are i32 offsets within a plane.
void checkPlaneSize(const PoolDesc& d) {
    if (d.h * d.w > INT32_MAX)
        throw Error("pooling: plane too large for i32 indices");
}

} // namespace

void launchPoolForward(const PoolDesc& d, const void* x, void* y, int32_t* indices, DType dtype,
                       cudaStream_t stream) {
    checkPlaneSize(d);
    const PoolGeometry g = geometryOf(d);
    const int64_t total = g.planes * g.oh * g.ow;
    if (total == 0)
        return;
    dispatchFloat(dtype, "poolForward", [&](auto io) {
        using Io = decltype(io);
        poolForwardKernel<Io>
            <<<gridFor(total), kBlock, 0, stream>>>(in<Io>(x), out<Io>(y), indices, g);
    });
    TB_KERNEL_CHECK("poolForwardKernel");
}

void launchPoolBackward(const PoolDesc& d, const void* dy, const int32_t* indices, void* dx,
                        DType dtype, cudaStream_t stream) {
    checkPlaneSize(d);
    const PoolGeometry g = geometryOf(d);
    const int64_t total = g.planes * g.h * g.w;
    if (total == 0)
        return;
    dispatchFloat(dtype, "poolBackward", [&](auto io) {
        using Io = decltype(io);
        poolBackwardKernel<Io>
            <<<gridFor(total), kBlock, 0, stream>>>(in<Io>(dy), indices, out<Io>(dx), g);
    });
    TB_KERNEL_CHECK("poolBackwardKernel");
}

} // namespace tb::cuda

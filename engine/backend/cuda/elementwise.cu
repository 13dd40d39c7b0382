// Elementwise kernels: fill, cast, activations, dropout, add, shortcut pad, bias, accumulate, the
// inf/NaN check and the loss-scale update. The arithmetic comes from backend/kernels/*.h.
#include "cudacheck.h"
#include "dtypeio.cuh"
#include "kernels.h"

#include "backend/kernels/activation_math.h"
#include "backend/kernels/optimizer_math.h"
#include "backend/kernels/random_math.h"

namespace tb::cuda {

namespace {

template <typename Io> __global__ void fillKernel(typename Io::Storage* p, int64_t n, float v) {
    TB_GRID_STRIDE(i, n) {
        Io::store(p, i, v);
    }
}

template <typename T> __global__ void fillIntKernel(T* p, int64_t n, T v) {
    TB_GRID_STRIDE(i, n) {
        p[i] = v;
    }
}

template <typename Src, typename Dst>
__global__ void castKernel(const typename Src::Storage* src, typename Dst::Storage* dst,
                           int64_t n) {
    TB_GRID_STRIDE(i, n) {
        Dst::store(dst, i, Src::load(src, i));
    }
}

template <typename Io>
__global__ void activationForwardKernel(Activation a, float alpha, const typename Io::Storage* x,
                                        typename Io::Storage* y, int64_t n) {
    TB_GRID_STRIDE(i, n) {
        Io::store(y, i, math::activate(a, alpha, Io::load(x, i)));
    }
}

template <typename Io>
__global__ void activationBackwardKernel(Activation a, float alpha, const typename Io::Storage* x,
                                         const typename Io::Storage* dy, typename Io::Storage* dx,
                                         int64_t n) {
    TB_GRID_STRIDE(i, n) {
        Io::store(dx, i, math::activateBackward(a, alpha, Io::load(x, i), Io::load(dy, i)));
    }
}

template <typename Io>
__global__ void dropoutForwardKernel(const typename Io::Storage* x, typename Io::Storage* y,
                                     uint8_t* mask, int64_t n, float p, float scale,
                                     uint64_t seed) {
    TB_GRID_STRIDE(i, n) {
        const bool keep = math::dropoutKeep(seed, static_cast<uint64_t>(i), p);
        mask[i] = keep ? 1 : 0;
        Io::store(y, i, keep ? Io::load(x, i) * scale : 0.0f);
    }
}

template <typename Io>
__global__ void dropoutBackwardKernel(const typename Io::Storage* dy, const uint8_t* mask,
                                      typename Io::Storage* dx, int64_t n, float scale) {
    TB_GRID_STRIDE(i, n) {
        Io::store(dx, i, mask[i] ? Io::load(dy, i) * scale : 0.0f);
    }
}

template <typename Io>
__global__ void addKernel(const typename Io::Storage* a, const typename Io::Storage* b,
                          typename Io::Storage* y, int64_t n) {
    TB_GRID_STRIDE(i, n) {
        Io::store(y, i, Io::load(a, i) + Io::load(b, i));
    }
}

template <typename Io>
__global__ void shortcutForwardKernel(const typename Io::Storage* x, typename Io::Storage* y,
                                      ShortcutGeometry g) {
    const int64_t cy = g.c + 2 * g.padC;
    const int64_t total = g.n * cy * g.ho * g.wo;
    TB_GRID_STRIDE(i, total) {
        const int64_t ow = i % g.wo;
        const int64_t oh = (i / g.wo) % g.ho;
        const int64_t ch = (i / (g.wo * g.ho)) % cy;
        const int64_t b = i / (g.wo * g.ho * cy);
        const int64_t ci = ch - g.padC;
        const int64_t ih = oh * g.stride, iw = ow * g.stride;
        float v = 0.0f;
        if (ci >= 0 && ci < g.c && ih < g.h && iw < g.w)
            v = Io::load(x, ((b * g.c + ci) * g.h + ih) * g.w + iw);
        Io::store(y, i, v);
    }
}

template <typename Io>
__global__ void shortcutBackwardKernel(const typename Io::Storage* dy, typename Io::Storage* dx,
                                       ShortcutGeometry g) {
    const int64_t cy = g.c + 2 * g.padC;
    const int64_t total = g.n * g.c * g.h * g.w;
    TB_GRID_STRIDE(i, total) {
        const int64_t iw = i % g.w;
        const int64_t ih = (i / g.w) % g.h;
        const int64_t ci = (i / (g.w * g.h)) % g.c;
        const int64_t b = i / (g.w * g.h * g.c);
        float v = 0.0f;
        if (ih % g.stride == 0 && iw % g.stride == 0) {
            const int64_t oh = ih / g.stride, ow = iw / g.stride;
            if (oh < g.ho && ow < g.wo)
                v = Io::load(dy, ((b * cy + ci + g.padC) * g.ho + oh) * g.wo + ow);
        }
        Io::store(dx, i, v);
    }
}

template <typename Io>
__global__ void addBiasKernel(typename Io::Storage* y, const float* bias, int64_t n, int64_t c,
                              int64_t hw) {
    const int64_t total = n * c * hw;
    TB_GRID_STRIDE(i, total) {
        const int64_t ch = (i / hw) % c;
        Io::store(y, i, Io::load(y, i) + bias[ch]);
    }
}

// One block per channel; fixed summation order, so the result is deterministic.
template <typename Io>
__global__ void biasGradKernel(const typename Io::Storage* dy, float* db, int64_t n, int64_t c,
                               int64_t hw) {
    __shared__ float partial[kBlock];
    const int64_t ch = blockIdx.x;
    float sum = 0.0f;
    for (int64_t j = threadIdx.x; j < n * hw; j += blockDim.x) {
        const int64_t b = j / hw, k = j % hw;
        sum += Io::load(dy, (b * c + ch) * hw + k);
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = kBlock / 2; stride > 0; stride /= 2) {
        if (static_cast<int>(threadIdx.x) < stride)
            partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        db[ch] += partial[0];
}

template <typename Io>
__global__ void accumulateKernel(const typename Io::Storage* src, float* dst, int64_t n) {
    TB_GRID_STRIDE(i, n) {
        dst[i] += Io::load(src, i);
    }
}

template <typename Io>
__global__ void checkFiniteKernel(const typename Io::Storage* data, int64_t n, float* flag) {
    bool bad = false;
    TB_GRID_STRIDE(i, n) {
        bad |= !isfinite(Io::load(data, i));
    }
    if (bad)
        *flag = 1.0f; // every writer stores the same value, so the race is benign
}

__global__ void updateLossScaleKernel(float* state, const float* foundInf, float growth,
                                      float backoff, int growthInterval) {
    math::updateLossScale(state, foundInf[0] != 0.0f, growth, backoff, growthInterval);
}

} // namespace

void launchFill(void* data, DType dtype, int64_t n, float value, cudaStream_t stream) {
    if (n == 0)
        return;
    if (dtype == DType::I32) {
        fillIntKernel<<<gridFor(n), kBlock, 0, stream>>>(static_cast<int32_t*>(data), n,
                                                         static_cast<int32_t>(value));
    } else if (dtype == DType::U8) {
        // Through int, as the CPU's memset: a float outside 0..255 converts without UB.
        const auto byte = static_cast<uint8_t>(static_cast<int32_t>(value));
        fillIntKernel<<<gridFor(n), kBlock, 0, stream>>>(static_cast<uint8_t*>(data), n, byte);
    } else {
        dispatchFloat(dtype, "fill", [&](auto io) {
            using Io = decltype(io);
            fillKernel<Io><<<gridFor(n), kBlock, 0, stream>>>(out<Io>(data), n, value);
        });
    }
    TB_KERNEL_CHECK("fillKernel");
}

void launchCast(const void* src, DType srcType, void* dst, DType dstType, int64_t n,
                cudaStream_t stream) {
    if (n == 0)
        return;
    dispatchFloat(srcType, "cast", [&](auto srcIo) {
        using Src = decltype(srcIo);
        dispatchFloat(dstType, "cast", [&](auto dstIo) {
            using Dst = decltype(dstIo);
            castKernel<Src, Dst><<<gridFor(n), kBlock, 0, stream>>>(in<Src>(src), out<Dst>(dst), n);
        });
    });
    TB_KERNEL_CHECK("castKernel");
}

void launchActivationForward(Activation a, float alpha, const void* x, void* y, DType dtype,
                             int64_t n, cudaStream_t stream) {
    if (n == 0)
        return;
    dispatchFloat(dtype, "activationForward", [&](auto io) {
        using Io = decltype(io);
        activationForwardKernel<Io>
            <<<gridFor(n), kBlock, 0, stream>>>(a, alpha, in<Io>(x), out<Io>(y), n);
    });
    TB_KERNEL_CHECK("activationForwardKernel");
}

void launchActivationBackward(Activation a, float alpha, const void* x, const void* dy, void* dx,
                              DType dtype, int64_t n, cudaStream_t stream) {
    if (n == 0)
        return;
    dispatchFloat(dtype, "activationBackward", [&](auto io) {
        using Io = decltype(io);
        activationBackwardKernel<Io>
            <<<gridFor(n), kBlock, 0, stream>>>(a, alpha, in<Io>(x), in<Io>(dy), out<Io>(dx), n);
    });
    TB_KERNEL_CHECK("activationBackwardKernel");
}

void launchDropoutForward(const void* x, void* y, uint8_t* mask, DType dtype, int64_t n, float p,
                          uint64_t seed, cudaStream_t stream) {
    if (n == 0)
        return;
    const float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
    dispatchFloat(dtype, "dropoutForward", [&](auto io) {
        using Io = decltype(io);
        dropoutForwardKernel<Io>
            <<<gridFor(n), kBlock, 0, stream>>>(in<Io>(x), out<Io>(y), mask, n, p, scale, seed);
    });
    TB_KERNEL_CHECK("dropoutForwardKernel");
}

void launchDropoutBackward(const void* dy, const uint8_t* mask, void* dx, DType dtype, int64_t n,
                           float p, cudaStream_t stream) {
    if (n == 0)
        return;
    const float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
    dispatchFloat(dtype, "dropoutBackward", [&](auto io) {
        using Io = decltype(io);
        dropoutBackwardKernel<Io>
            <<<gridFor(n), kBlock, 0, stream>>>(in<Io>(dy), mask, out<Io>(dx), n, scale);
    });
    TB_KERNEL_CHECK("dropoutBackwardKernel");
}

void launchAdd(const void* a, const void* b, void* y, DType dtype, int64_t n, cudaStream_t stream) {
    if (n == 0)
        return;
    dispatchFloat(dtype, "add", [&](auto io) {
        using Io = decltype(io);
        addKernel<Io><<<gridFor(n), kBlock, 0, stream>>>(in<Io>(a), in<Io>(b), out<Io>(y), n);
    });
    TB_KERNEL_CHECK("addKernel");
}

void launchShortcutPadForward(const void* x, void* y, DType dtype, const ShortcutGeometry& g,
                              cudaStream_t stream) {
    const int64_t total = g.n * (g.c + 2 * g.padC) * g.ho * g.wo;
    if (total == 0)
        return;
    dispatchFloat(dtype, "shortcutPadForward", [&](auto io) {
        using Io = decltype(io);
        shortcutForwardKernel<Io><<<gridFor(total), kBlock, 0, stream>>>(in<Io>(x), out<Io>(y), g);
    });
    TB_KERNEL_CHECK("shortcutForwardKernel");
}

void launchShortcutPadBackward(const void* dy, void* dx, DType dtype, const ShortcutGeometry& g,
                               cudaStream_t stream) {
    const int64_t total = g.n * g.c * g.h * g.w;
    if (total == 0)
        return;
    dispatchFloat(dtype, "shortcutPadBackward", [&](auto io) {
        using Io = decltype(io);
        shortcutBackwardKernel<Io>
            <<<gridFor(total), kBlock, 0, stream>>>(in<Io>(dy), out<Io>(dx), g);
    });
    TB_KERNEL_CHECK("shortcutBackwardKernel");
}

void launchAddBias(void* y, const float* b, DType dtype, int64_t n, int64_t c, int64_t hw,
                   cudaStream_t stream) {
    const int64_t total = n * c * hw;
    if (total == 0)
        return;
    dispatchFloat(dtype, "addBias", [&](auto io) {
        using Io = decltype(io);
        addBiasKernel<Io><<<gridFor(total), kBlock, 0, stream>>>(out<Io>(y), b, n, c, hw);
    });
    TB_KERNEL_CHECK("addBiasKernel");
}

void launchBiasGrad(const void* dy, float* db, DType dtype, int64_t n, int64_t c, int64_t hw,
                    cudaStream_t stream) {
    if (c == 0)
        return;
    dispatchFloat(dtype, "biasGrad", [&](auto io) {
        using Io = decltype(io);
        biasGradKernel<Io>
            <<<static_cast<unsigned>(c), kBlock, 0, stream>>>(in<Io>(dy), db, n, c, hw);
    });
    TB_KERNEL_CHECK("biasGradKernel");
}

void launchAccumulate(const void* src, DType srcType, float* dst, int64_t n, cudaStream_t stream) {
    if (n == 0)
        return;
    dispatchFloat(srcType, "accumulate", [&](auto io) {
        using Io = decltype(io);
        accumulateKernel<Io><<<gridFor(n), kBlock, 0, stream>>>(in<Io>(src), dst, n);
    });
    TB_KERNEL_CHECK("accumulateKernel");
}

void launchCheckFinite(const void* data, DType dtype, int64_t n, float* flag, cudaStream_t stream) {
    if (n == 0)
        return;
    dispatchFloat(dtype, "checkFinite", [&](auto io) {
        using Io = decltype(io);
        checkFiniteKernel<Io><<<gridFor(n), kBlock, 0, stream>>>(in<Io>(data), n, flag);
    });
    TB_KERNEL_CHECK("checkFiniteKernel");
}

void launchUpdateLossScale(float* state, const float* foundInf, float growth, float backoff,
                           int growthInterval, cudaStream_t stream) {
    updateLossScaleKernel<<<1, 1, 0, stream>>>(state, foundInf, growth, backoff, growthInterval);
    TB_KERNEL_CHECK("updateLossScaleKernel");
}

} // namespace tb::cuda

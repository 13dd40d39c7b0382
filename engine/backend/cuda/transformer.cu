// The transformer ops' own kernels: position embeddings, layer norm (a warp per row), attention's
// head layout changes and its causal softmax (a warp per row of scores). Every reduction runs in
// a fixed order, so results are bit-reproducible. The token embedding is embedding.cu's.
#include "cudacheck.h"
#include "dtypeio.cuh"
#include "kernels.h"

#include "backend/kernels/random_math.h"

namespace tb::cuda {

namespace {

constexpr int kWarp = 32;
constexpr int kWarpsPerBlock = kBlock / kWarp;

__device__ __forceinline__ float warpSum(float v) {
    for (int offset = kWarp / 2; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

__device__ __forceinline__ float warpMax(float v) {
    for (int offset = kWarp / 2; offset > 0; offset /= 2)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

unsigned warpBlocks(int64_t rows) {
    return static_cast<unsigned>(
        std::clamp<int64_t>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock, 1, int64_t{1} << 20));
}

#define TB_WARP_ROWS(row, rows)                                                                    \
    for (int64_t row = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;      \
         row < (rows); row += static_cast<int64_t>(gridDim.x) * blockDim.x / kWarp)

template <typename Io>
__global__ void positionForwardKernel(const typename Io::Storage* x, const float* table,
                                      typename Io::Storage* y, int64_t total, int64_t t,
                                      int64_t d) {
    TB_GRID_STRIDE(i, total) {
        Io::store(y, i, Io::load(x, i) + table[(i / d) % t * d + i % d]);
    }
}

template <typename Io>
__global__ void positionBackwardKernel(const typename Io::Storage* dy, float* dtable, int64_t n,
                                       int64_t t, int64_t d) {
    TB_GRID_STRIDE(e, t * d) {
        float sum = 0.0f;
        for (int64_t b = 0; b < n; ++b)
            sum += Io::load(dy, b * t * d + e);
        dtable[e] += sum;
    }
}

template <typename Io>
__global__ void layerNormForwardKernel(const typename Io::Storage* x, typename Io::Storage* y,
                                       int64_t m, int64_t d, const float* gamma, const float* beta,
                                       float eps, float* mean, float* variance) {
    const int lane = threadIdx.x % kWarp;
    TB_WARP_ROWS(row, m) {
        const int64_t base = row * d;
        float sum = 0.0f;
        for (int64_t j = lane; j < d; j += kWarp)
            sum += Io::load(x, base + j);
        const float mu = warpSum(sum) / static_cast<float>(d);
        float sq = 0.0f;
        for (int64_t j = lane; j < d; j += kWarp) {
            const float c = Io::load(x, base + j) - mu;
            sq += c * c;
        }
        const float var = warpSum(sq) / static_cast<float>(d);
        const float rstd = rsqrtf(var + eps);
        for (int64_t j = lane; j < d; j += kWarp)
            Io::store(y, base + j, (Io::load(x, base + j) - mu) * rstd * gamma[j] + beta[j]);
        if (lane == 0) {
            mean[row] = mu;
            variance[row] = var;
        }
    }
}

// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) with g = dy * gamma.
template <typename Io>
__global__ void
layerNormBackwardDataKernel(const typename Io::Storage* x, const typename Io::Storage* dy,
                            typename Io::Storage* dx, int64_t m, int64_t d, const float* gamma,
                            const float* mean, const float* variance, float eps) {
    const int lane = threadIdx.x % kWarp;
    TB_WARP_ROWS(row, m) {
        const int64_t base = row * d;
        const float mu = mean[row], rstd = rsqrtf(variance[row] + eps);
        float sumG = 0.0f, sumGX = 0.0f;
        for (int64_t j = lane; j < d; j += kWarp) {
            const float g = Io::load(dy, base + j) * gamma[j];
            sumG += g;
            sumGX += g * (Io::load(x, base + j) - mu) * rstd;
        }
        const float meanG = warpSum(sumG) / static_cast<float>(d);
        const float meanGX = warpSum(sumGX) / static_cast<float>(d);
        for (int64_t j = lane; j < d; j += kWarp) {
            const float xhat = (Io::load(x, base + j) - mu) * rstd;
            const float g = Io::load(dy, base + j) * gamma[j];
            Io::store(dx, base + j, rstd * (g - meanG - xhat * meanGX));
        }
    }
}

// The parameters' gradients in two stages that scale with the rows: a block per (32 columns,
// chunk of rows) whose warps walk the chunk's rows interleaved, reading a row's 32 columns at
// once, and add their sums in warp order into partials (the chunk's dgamma row, then its dbeta
// row further on); then a thread a column adds the chunks in order.
template <typename Io>
__global__ void layerNormParamPartialsKernel(const typename Io::Storage* x,
                                             const typename Io::Storage* dy, int64_t m, int64_t d,
                                             const float* mean, const float* variance, float eps,
                                             int64_t rowsPerChunk, float* partials) {
    __shared__ float gammaPart[kWarpsPerBlock][kWarp];
    __shared__ float betaPart[kWarpsPerBlock][kWarp];
    const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
    const int64_t j = static_cast<int64_t>(blockIdx.x) * kWarp + lane;
    const int64_t first = static_cast<int64_t>(blockIdx.y) * rowsPerChunk;
    const int64_t last = min(m, first + rowsPerChunk);
    float sg = 0.0f, sb = 0.0f;
    if (j < d)
        for (int64_t row = first + warp; row < last; row += kWarpsPerBlock) {
            const float g = Io::load(dy, row * d + j);
            sg += g * (Io::load(x, row * d + j) - mean[row]) * rsqrtf(variance[row] + eps);
            sb += g;
        }
    gammaPart[warp][lane] = sg;
    betaPart[warp][lane] = sb;
    __syncthreads();
    if (warp == 0 && j < d) {
        float g = 0.0f, b = 0.0f;
        for (int w = 0; w < kWarpsPerBlock; ++w) {
            g += gammaPart[w][lane];
            b += betaPart[w][lane];
        }
        const int64_t chunks = gridDim.y;
        partials[blockIdx.y * d + j] = g;
        partials[(chunks + blockIdx.y) * d + j] = b;
    }
}

__global__ void layerNormParamSumKernel(const float* partials, int64_t chunks, int64_t d,
                                        float* dgamma, float* dbeta) {
    TB_GRID_STRIDE(j, d) {
        float g = 0.0f, b = 0.0f;
        for (int64_t c = 0; c < chunks; ++c) {
            g += partials[c * d + j];
            b += partials[(chunks + c) * d + j];
        }
        dgamma[j] += g;
        dbeta[j] += b;
    }
}

// Element e of (n, heads, t, hd) and its place in qkv(n, t, 3, heads, hd) for part `part`.
__device__ __forceinline__ int64_t packedIndex(int64_t e, int64_t part, const AttentionDesc& a) {
    const int64_t c = e % a.headDim, i = e / a.headDim % a.t, h = e / (a.headDim * a.t) % a.heads,
                  b = e / (a.headDim * a.t * a.heads);
    return ((b * a.t + i) * 3 + part) * a.width() + h * a.headDim + c;
}

__device__ __forceinline__ int64_t rowIndex(int64_t e, const AttentionDesc& a) {
    const int64_t c = e % a.headDim, i = e / a.headDim % a.t, h = e / (a.headDim * a.t) % a.heads,
                  b = e / (a.headDim * a.t * a.heads);
    return (b * a.t + i) * a.width() + h * a.headDim + c;
}

template <typename Io>
__global__ void splitHeadsKernel(const typename Io::Storage* qkv, typename Io::Storage* q,
                                 typename Io::Storage* k, typename Io::Storage* v,
                                 AttentionDesc a) {
    TB_GRID_STRIDE(e, a.n * a.t * a.width()) {
        q[e] = qkv[packedIndex(e, 0, a)];
        k[e] = qkv[packedIndex(e, 1, a)];
        v[e] = qkv[packedIndex(e, 2, a)];
    }
}

template <typename Io>
__global__ void mergeHeadsKernel(const typename Io::Storage* q, const typename Io::Storage* k,
                                 const typename Io::Storage* v, typename Io::Storage* qkv,
                                 AttentionDesc a) {
    TB_GRID_STRIDE(e, a.n * a.t * a.width()) {
        qkv[packedIndex(e, 0, a)] = q[e];
        qkv[packedIndex(e, 1, a)] = k[e];
        qkv[packedIndex(e, 2, a)] = v[e];
    }
}

template <typename Io>
__global__ void headsToRowsKernel(const typename Io::Storage* yh, typename Io::Storage* y,
                                  AttentionDesc a) {
    TB_GRID_STRIDE(e, a.n * a.t * a.width()) {
        y[rowIndex(e, a)] = yh[e];
    }
}

template <typename Io>
__global__ void rowsToHeadsKernel(const typename Io::Storage* y, typename Io::Storage* yh,
                                  AttentionDesc a) {
    TB_GRID_STRIDE(e, a.n * a.t * a.width()) {
        yh[e] = y[rowIndex(e, a)];
    }
}

__global__ void causalSoftmaxKernel(float* scores, AttentionDesc a) {
    const int lane = threadIdx.x % kWarp;
    TB_WARP_ROWS(row, a.n * a.heads * a.t) {
        const int64_t i = row % a.t, base = row * a.t;
        float top = -INFINITY;
        for (int64_t j = lane; j <= i; j += kWarp)
            top = fmaxf(top, scores[base + j]);
        top = warpMax(top);
        float sum = 0.0f;
        for (int64_t j = lane; j <= i; j += kWarp)
            sum += expf(scores[base + j] - top);
        const float inv = 1.0f / warpSum(sum);
        for (int64_t j = lane; j < a.t; j += kWarp)
            scores[base + j] = j <= i ? expf(scores[base + j] - top) * inv : 0.0f;
    }
}

__device__ __forceinline__ float dropped(const AttentionDesc& a, int64_t e, float v) {
    if (a.dropout <= 0.0f)
        return v;
    return math::dropoutKeep(a.seed, static_cast<uint64_t>(e), a.dropout)
               ? v * (1.0f / (1.0f - a.dropout))
               : 0.0f;
}

template <typename Io>
__global__ void attentionWeightsKernel(const float* probs, typename Io::Storage* weights,
                                       AttentionDesc a) {
    TB_GRID_STRIDE(e, a.probsCount()) {
        Io::store(weights, e, dropped(a, e, probs[e]));
    }
}

template <typename Io>
__global__ void causalSoftmaxBackwardKernel(const float* probs, const float* dweights,
                                            typename Io::Storage* ds, AttentionDesc a,
                                            float scale) {
    const int lane = threadIdx.x % kWarp;
    TB_WARP_ROWS(row, a.n * a.heads * a.t) {
        const int64_t i = row % a.t, base = row * a.t;
        const auto dp = [&](int64_t j) { return dropped(a, base + j, dweights[base + j]); };
        float dot = 0.0f;
        for (int64_t j = lane; j <= i; j += kWarp)
            dot += probs[base + j] * dp(j);
        dot = warpSum(dot);
        for (int64_t j = lane; j < a.t; j += kWarp)
            Io::store(ds, base + j, j <= i ? scale * probs[base + j] * (dp(j) - dot) : 0.0f);
    }
}

} // namespace

void launchPositionEmbeddingForward(const void* x, const float* table, void* y, DType dtype,
                                    int64_t n, int64_t t, int64_t d, cudaStream_t stream) {
    const int64_t total = n * t * d;
    if (total == 0)
        return;
    dispatchFloat(dtype, "positionEmbeddingForward", [&](auto io) {
        using Io = decltype(io);
        positionForwardKernel<Io>
            <<<gridFor(total), kBlock, 0, stream>>>(in<Io>(x), table, out<Io>(y), total, t, d);
    });
    TB_KERNEL_CHECK("positionForwardKernel");
}

void launchPositionEmbeddingBackward(const void* dy, DType dtype, float* dtable, int64_t n,
                                     int64_t t, int64_t d, cudaStream_t stream) {
    if (t * d == 0)
        return;
    dispatchFloat(dtype, "positionEmbeddingBackward", [&](auto io) {
        using Io = decltype(io);
        positionBackwardKernel<Io>
            <<<gridFor(t * d), kBlock, 0, stream>>>(in<Io>(dy), dtable, n, t, d);
    });
    TB_KERNEL_CHECK("positionBackwardKernel");
}

void launchLayerNormForward(const void* x, void* y, DType dtype, int64_t m, int64_t d,
                            const float* gamma, const float* beta, float eps, float* mean,
                            float* variance, cudaStream_t stream) {
    if (m == 0)
        return;
    dispatchFloat(dtype, "layerNormForward", [&](auto io) {
        using Io = decltype(io);
        layerNormForwardKernel<Io><<<warpBlocks(m), kBlock, 0, stream>>>(
            in<Io>(x), out<Io>(y), m, d, gamma, beta, eps, mean, variance);
    });
    TB_KERNEL_CHECK("layerNormForwardKernel");
}

void launchLayerNormBackward(const void* x, const void* dy, void* dx, DType dtype, int64_t m,
                             int64_t d, const float* gamma, const float* mean,
                             const float* variance, float eps, float* dgamma, float* dbeta,
                             float* partials, cudaStream_t stream) {
    if (m == 0)
        return;
    const dim3 grid(static_cast<unsigned>((d + kWarp - 1) / kWarp),
                    static_cast<unsigned>(layerNormChunks(m)));
    dispatchFloat(dtype, "layerNormBackward", [&](auto io) {
        using Io = decltype(io);
        layerNormBackwardDataKernel<Io><<<warpBlocks(m), kBlock, 0, stream>>>(
            in<Io>(x), in<Io>(dy), out<Io>(dx), m, d, gamma, mean, variance, eps);
        layerNormParamPartialsKernel<Io><<<grid, kBlock, 0, stream>>>(
            in<Io>(x), in<Io>(dy), m, d, mean, variance, eps, layerNormRowsPerChunk(m), partials);
    });
    TB_KERNEL_CHECK("layerNormBackwardKernels");
    layerNormParamSumKernel<<<gridFor(d), kBlock, 0, stream>>>(partials, layerNormChunks(m), d,
                                                               dgamma, dbeta);
    TB_KERNEL_CHECK("layerNormParamSumKernel");
}

void launchSplitHeads(const void* qkv, void* q, void* k, void* v, DType dtype,
                      const AttentionDesc& a, cudaStream_t stream) {
    dispatchFloat(dtype, "attention", [&](auto io) {
        using Io = decltype(io);
        splitHeadsKernel<Io><<<gridFor(a.n * a.t * a.width()), kBlock, 0, stream>>>(
            in<Io>(qkv), out<Io>(q), out<Io>(k), out<Io>(v), a);
    });
    TB_KERNEL_CHECK("splitHeadsKernel");
}

void launchMergeHeads(const void* q, const void* k, const void* v, void* qkv, DType dtype,
                      const AttentionDesc& a, cudaStream_t stream) {
    dispatchFloat(dtype, "attention", [&](auto io) {
        using Io = decltype(io);
        mergeHeadsKernel<Io><<<gridFor(a.n * a.t * a.width()), kBlock, 0, stream>>>(
            in<Io>(q), in<Io>(k), in<Io>(v), out<Io>(qkv), a);
    });
    TB_KERNEL_CHECK("mergeHeadsKernel");
}

void launchHeadsToRows(const void* yh, void* y, DType dtype, const AttentionDesc& a,
                       cudaStream_t stream) {
    dispatchFloat(dtype, "attention", [&](auto io) {
        using Io = decltype(io);
        headsToRowsKernel<Io>
            <<<gridFor(a.n * a.t * a.width()), kBlock, 0, stream>>>(in<Io>(yh), out<Io>(y), a);
    });
    TB_KERNEL_CHECK("headsToRowsKernel");
}

void launchRowsToHeads(const void* y, void* yh, DType dtype, const AttentionDesc& a,
                       cudaStream_t stream) {
    dispatchFloat(dtype, "attention", [&](auto io) {
        using Io = decltype(io);
        rowsToHeadsKernel<Io>
            <<<gridFor(a.n * a.t * a.width()), kBlock, 0, stream>>>(in<Io>(y), out<Io>(yh), a);
    });
    TB_KERNEL_CHECK("rowsToHeadsKernel");
}

void launchCausalSoftmax(float* scores, const AttentionDesc& a, cudaStream_t stream) {
    causalSoftmaxKernel<<<warpBlocks(a.n * a.heads * a.t), kBlock, 0, stream>>>(scores, a);
    TB_KERNEL_CHECK("causalSoftmaxKernel");
}

void launchAttentionWeights(const float* probs, void* weights, DType dtype, const AttentionDesc& a,
                            cudaStream_t stream) {
    dispatchFloat(dtype, "attention", [&](auto io) {
        using Io = decltype(io);
        attentionWeightsKernel<Io>
            <<<gridFor(a.probsCount()), kBlock, 0, stream>>>(probs, out<Io>(weights), a);
    });
    TB_KERNEL_CHECK("attentionWeightsKernel");
}

void launchCausalSoftmaxBackward(const float* probs, const float* dweights, void* ds, DType dtype,
                                 const AttentionDesc& a, float scale, cudaStream_t stream) {
    dispatchFloat(dtype, "attention", [&](auto io) {
        using Io = decltype(io);
        causalSoftmaxBackwardKernel<Io><<<warpBlocks(a.n * a.heads * a.t), kBlock, 0, stream>>>(
            probs, dweights, out<Io>(ds), a, scale);
    });
    TB_KERNEL_CHECK("causalSoftmaxBackwardKernel");
}

} // namespace tb::cuda

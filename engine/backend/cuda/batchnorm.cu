// Batch norm with our own kernels (used for bf16 and small eps; cuDNN serves f32 / f16). Every
// reduction runs in a fixed order, so results are deterministic for a given GPU.
#include "cudacheck.h"
#include "dtypeio.cuh"
#include "kernels.h"

#include <algorithm>

namespace tb::cuda {

namespace {

// Welford state of a run of values: count, mean, sum of squared deviations.
struct Moments {
    float n, mean, m2;
};

// Chan et al.: merges two partial moments.
__device__ __forceinline__ Moments merge(Moments a, Moments b) {
    const float n = a.n + b.n;
    if (n == 0.0f)
        return a;
    const float delta = b.mean - a.mean;
    const float wb = b.n / n;
    return {n, a.mean + delta * wb, a.m2 + b.m2 + delta * delta * a.n * wb};
}

// Element j of channel ch in (n, c, hw) layout.
__device__ __forceinline__ int64_t bnIndex(const BnGeometry& g, int64_t ch, int64_t j) {
    return ((j / g.hw) * g.c + ch) * g.hw + j % g.hw;
}

__device__ __forceinline__ void splitRange(const BnGeometry& g, int64_t splits, int64_t split,
                                           int64_t& begin, int64_t& end) {
    const int64_t m = g.n * g.hw;
    const int64_t per = (m + splits - 1) / splits;
    begin = split * per;
    end = begin + per < m ? begin + per : m;
}

// grid (c, splits): partial moments of one slice of one channel -> scratch[ch][split][3].
template <typename Io>
__global__ void bnMomentsKernel(const typename Io::Storage* x, BnGeometry g, int64_t splits,
                                float* partial) {
    __shared__ Moments shared[kBlock];
    const int64_t ch = blockIdx.x, split = blockIdx.y;
    int64_t begin = 0, end = 0;
    splitRange(g, splits, split, begin, end);
    Moments m{0.0f, 0.0f, 0.0f};
    for (int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) {
        const float v = Io::load(x, bnIndex(g, ch, j));
        m.n += 1.0f;
        const float d = v - m.mean;
        m.mean += d / m.n;
        m.m2 += d * (v - m.mean);
    }
    shared[threadIdx.x] = m;
    __syncthreads();
    for (int s = kBlock / 2; s > 0; s /= 2) {
        if (static_cast<int>(threadIdx.x) < s)
            shared[threadIdx.x] = merge(shared[threadIdx.x], shared[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        float* out = partial + (ch * splits + split) * 3;
        out[0] = shared[0].n;
        out[1] = shared[0].mean;
        out[2] = shared[0].m2;
    }
}

// One thread per channel: merges the splits in order, saves mean and 1/sqrt(var + eps), updates
// the running statistics (PyTorch: running = (1 - momentum) * running + momentum * batch, with
// the unbiased variance).
__global__ void bnFinalizeKernel(const float* partial, BnGeometry g, int64_t splits, float momentum,
                                 float eps, float* runningMean, float* runningVar, float* saveMean,
                                 float* saveInvStd) {
    const int64_t ch = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (ch >= g.c)
        return;
    Moments m{0.0f, 0.0f, 0.0f};
    for (int64_t s = 0; s < splits; ++s) {
        const float* p = partial + (ch * splits + s) * 3;
        m = merge(m, {p[0], p[1], p[2]});
    }
    const float var = m.n > 0.0f ? m.m2 / m.n : 0.0f;
    const float unbiased = m.n > 1.0f ? m.m2 / (m.n - 1.0f) : var;
    saveMean[ch] = m.mean;
    saveInvStd[ch] = 1.0f / sqrtf(var + eps);
    runningMean[ch] = (1.0f - momentum) * runningMean[ch] + momentum * m.mean;
    runningVar[ch] = (1.0f - momentum) * runningVar[ch] + momentum * unbiased;
}

// y = (x - mean[ch]) * s * gamma[ch] + beta[ch], s = invStd[ch] or 1/sqrt(var[ch] + eps).
template <typename Io>
__global__ void bnApplyKernel(const typename Io::Storage* x, typename Io::Storage* y, BnGeometry g,
                              const float* gamma, const float* beta, const float* mean,
                              const float* scale, bool scaleIsVar, float eps) {
    const int64_t total = g.n * g.c * g.hw;
    TB_GRID_STRIDE(i, total) {
        const int64_t ch = (i / g.hw) % g.c;
        const float s = scaleIsVar ? 1.0f / sqrtf(scale[ch] + eps) : scale[ch];
        Io::store(y, i, (Io::load(x, i) - mean[ch]) * s * gamma[ch] + beta[ch]);
    }
}

// grid (c, splits): partial sums of dy and dy * xhat -> scratch[ch][split][0..1].
template <typename Io>
__global__ void bnGradSumsKernel(const typename Io::Storage* x, const typename Io::Storage* dy,
                                 BnGeometry g, int64_t splits, const float* mean,
                                 const float* invStd, float* partial) {
    __shared__ float sumDy[kBlock];
    __shared__ float sumDyXhat[kBlock];
    const int64_t ch = blockIdx.x, split = blockIdx.y;
    int64_t begin = 0, end = 0;
    splitRange(g, splits, split, begin, end);
    const float mu = mean[ch], is = invStd[ch];
    float a = 0.0f, b = 0.0f;
    for (int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) {
        const int64_t i = bnIndex(g, ch, j);
        const float d = Io::load(dy, i);
        a += d;
        b += d * (Io::load(x, i) - mu) * is;
    }
    sumDy[threadIdx.x] = a;
    sumDyXhat[threadIdx.x] = b;
    __syncthreads();
    for (int s = kBlock / 2; s > 0; s /= 2) {
        if (static_cast<int>(threadIdx.x) < s) {
            sumDy[threadIdx.x] += sumDy[threadIdx.x + s];
            sumDyXhat[threadIdx.x] += sumDyXhat[threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        float* out = partial + (ch * splits + split) * 3;
        out[0] = sumDy[0];
        out[1] = sumDyXhat[0];
    }
}

// One thread per channel: totals in split order -> dbeta, dgamma (accumulated) and, for the dx
// pass, totals[ch * 2 + {0, 1}].
__global__ void bnGradFinalizeKernel(const float* partial, BnGeometry g, int64_t splits,
                                     float* dgamma, float* dbeta, float* totals) {
    const int64_t ch = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (ch >= g.c)
        return;
    float a = 0.0f, b = 0.0f;
    for (int64_t s = 0; s < splits; ++s) {
        a += partial[(ch * splits + s) * 3];
        b += partial[(ch * splits + s) * 3 + 1];
    }
    dbeta[ch] += a;
    dgamma[ch] += b;
    totals[ch * 2] = a;
    totals[ch * 2 + 1] = b;
}

// dx = gamma * invStd / m * (m * dy - sum dy - xhat * sum dy xhat), m = n * hw.
template <typename Io>
__global__ void bnGradInputKernel(const typename Io::Storage* x, const typename Io::Storage* dy,
                                  typename Io::Storage* dx, BnGeometry g, const float* gamma,
                                  const float* mean, const float* invStd, const float* totals) {
    const int64_t total = g.n * g.c * g.hw;
    const float invM = 1.0f / static_cast<float>(g.n * g.hw);
    TB_GRID_STRIDE(i, total) {
        const int64_t ch = (i / g.hw) % g.c;
        const float xhat = (Io::load(x, i) - mean[ch]) * invStd[ch];
        const float v = Io::load(dy, i) - totals[ch * 2] * invM - xhat * totals[ch * 2 + 1] * invM;
        Io::store(dx, i, gamma[ch] * invStd[ch] * v);
    }
}

unsigned channelBlocks(int64_t c) {
    return static_cast<unsigned>((c + kBlock - 1) / kBlock);
}

} // namespace

int64_t bnSplits(const BnGeometry& g, int smCount) {
    const int64_t m = g.n * g.hw;
    const int64_t wanted = (4 * std::max(smCount, 1) + g.c - 1) / std::max<int64_t>(g.c, 1);
    // At least 2048 values per block, at most 64 blocks per channel.
    return std::clamp<int64_t>(std::min(wanted, (m + 2047) / 2048), 1, 64);
}

void launchBatchNormForwardTrain(const void* x, void* y, DType dtype, const BnGeometry& g,
                                 const float* gamma, const float* beta, float* runningMean,
                                 float* runningVar, float momentum, float eps, float* saveMean,
                                 float* saveInvStd, float* scratch, int64_t splits,
                                 cudaStream_t stream) {
    const int64_t total = g.n * g.c * g.hw;
    if (total == 0)
        return;
    dispatchFloat(dtype, "batchNormForwardTrain", [&](auto io) {
        using Io = decltype(io);
        const dim3 grid(static_cast<unsigned>(g.c), static_cast<unsigned>(splits));
        bnMomentsKernel<Io><<<grid, kBlock, 0, stream>>>(in<Io>(x), g, splits, scratch);
        TB_KERNEL_CHECK("bnMomentsKernel");
        bnFinalizeKernel<<<channelBlocks(g.c), kBlock, 0, stream>>>(
            scratch, g, splits, momentum, eps, runningMean, runningVar, saveMean, saveInvStd);
        TB_KERNEL_CHECK("bnFinalizeKernel");
        bnApplyKernel<Io><<<gridFor(total), kBlock, 0, stream>>>(
            in<Io>(x), out<Io>(y), g, gamma, beta, saveMean, saveInvStd, false, 0.0f);
        TB_KERNEL_CHECK("bnApplyKernel");
    });
}

void launchBatchNormForwardInference(const void* x, void* y, DType dtype, const BnGeometry& g,
                                     const float* gamma, const float* beta,
                                     const float* runningMean, const float* runningVar, float eps,
                                     cudaStream_t stream) {
    const int64_t total = g.n * g.c * g.hw;
    if (total == 0)
        return;
    dispatchFloat(dtype, "batchNormForwardInference", [&](auto io) {
        using Io = decltype(io);
        bnApplyKernel<Io><<<gridFor(total), kBlock, 0, stream>>>(
            in<Io>(x), out<Io>(y), g, gamma, beta, runningMean, runningVar, true, eps);
    });
    TB_KERNEL_CHECK("bnApplyKernel");
}

void launchBatchNormBackward(const void* x, const void* dy, void* dx, DType dtype,
                             const BnGeometry& g, const float* gamma, const float* saveMean,
                             const float* saveInvStd, float* dgamma, float* dbeta, float* scratch,
                             int64_t splits, cudaStream_t stream) {
    const int64_t total = g.n * g.c * g.hw;
    if (total == 0)
        return;
    // scratch: partials [c][splits][3], then the per-channel totals [c][2].
    float* totals = scratch + g.c * splits * 3;
    dispatchFloat(dtype, "batchNormBackward", [&](auto io) {
        using Io = decltype(io);
        const dim3 grid(static_cast<unsigned>(g.c), static_cast<unsigned>(splits));
        bnGradSumsKernel<Io><<<grid, kBlock, 0, stream>>>(in<Io>(x), in<Io>(dy), g, splits,
                                                          saveMean, saveInvStd, scratch);
        TB_KERNEL_CHECK("bnGradSumsKernel");
        bnGradFinalizeKernel<<<channelBlocks(g.c), kBlock, 0, stream>>>(scratch, g, splits, dgamma,
                                                                        dbeta, totals);
        TB_KERNEL_CHECK("bnGradFinalizeKernel");
        bnGradInputKernel<Io><<<gridFor(total), kBlock, 0, stream>>>(
            in<Io>(x), in<Io>(dy), out<Io>(dx), g, gamma, saveMean, saveInvStd, totals);
        TB_KERNEL_CHECK("bnGradInputKernel");
    });
}

} // namespace tb::cuda

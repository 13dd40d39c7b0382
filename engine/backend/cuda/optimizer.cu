// Fused SGD and AdamW updates with the shared PyTorch formulas; they unscale the gradient by the
// device-side loss scale and skip the whole step when the device-side foundInf flag is set.
#include "cudacheck.h"
#include "dtypeio.cuh"
#include "kernels.h"

#include "backend/kernels/optimizer_math.h"

namespace tb::cuda {

namespace {

__device__ __forceinline__ bool skipStep(const float* foundInf) {
    return foundInf && foundInf[0] != 0.0f;
}

__device__ __forceinline__ float invScaleOf(const float* scaleState) {
    return scaleState ? 1.0f / scaleState[0] : 1.0f;
}

__global__ void sgdKernel(float* param, const float* grad, float* momentumBuf, int64_t n,
                          SgdParams p, const float* scaleState, const float* foundInf) {
    if (skipStep(foundInf))
        return;
    const float invScale = invScaleOf(scaleState);
    TB_GRID_STRIDE(i, n) {
        float value = param[i];
        math::sgdUpdate(p, value, grad[i] * invScale, momentumBuf ? momentumBuf + i : nullptr);
        param[i] = value;
    }
}

__global__ void adamwKernel(float* param, const float* grad, float* expAvg, float* expAvgSq,
                            int64_t n, AdamWParams p, const float* scaleState,
                            const float* foundInf, const float* skipped) {
    if (skipStep(foundInf))
        return;
    // The applied step count lives on the device (steps skipped so far), so the bias corrections
    // are computed here, once per block.
    __shared__ math::AdamWFactors f;
    if (threadIdx.x == 0)
        f = math::adamwFactors(p, math::appliedSteps(p, skipped));
    __syncthreads();
    const float invScale = invScaleOf(scaleState);
    TB_GRID_STRIDE(i, n) {
        float value = param[i], m = expAvg[i], v = expAvgSq[i];
        math::adamwUpdate(p, f, value, grad[i] * invScale, m, v);
        param[i] = value;
        expAvg[i] = m;
        expAvgSq[i] = v;
    }
}

// A block's sum of squares (a tree in shared memory: a fixed order) into partials[blockIdx.x].
__global__ void sumSquaresKernel(const float* g, int64_t n, double* partials) {
    __shared__ double partial[kBlock];
    double local = 0.0;
    TB_GRID_STRIDE(i, n) {
        const double v = g[i];
        local += v * v;
    }
    partial[threadIdx.x] = local;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partials[blockIdx.x] = partial[0];
}

// One block: the partials added in a fixed order (not atomicAdd's order of arrival) to *sum.
__global__ void addPartialsKernel(const double* partials, unsigned count, double* sum) {
    __shared__ double partial[kBlock];
    double local = 0.0;
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x)
        local += partials[i];
    partial[threadIdx.x] = local;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *sum += partial[0];
}

// One thread: the clip factor from the summed squares, the stats, and the sum zeroed for the
// next step.
__global__ void clipFactorKernel(double* sum, const float* scaleState, float maxNorm, float* stats,
                                 float* factor) {
    *factor = math::clipFactor(*sum, scaleState ? scaleState[0] : 1.0f, maxNorm, stats);
    *sum = 0.0;
}

__global__ void scaleByKernel(float* g, int64_t n, const float* factor) {
    const float f = *factor;
    if (f == 1.0f)
        return;
    TB_GRID_STRIDE(i, n) {
        g[i] *= f;
    }
}

} // namespace

void launchSumSquares(const float* g, int64_t n, double* partials, double* sum,
                      cudaStream_t stream) {
    if (n == 0)
        return;
    const unsigned blocks = std::min(gridFor(n), kMaxSumSquaresBlocks);
    sumSquaresKernel<<<blocks, kBlock, 0, stream>>>(g, n, partials);
    TB_KERNEL_CHECK("sumSquaresKernel");
    addPartialsKernel<<<1, kBlock, 0, stream>>>(partials, blocks, sum);
    TB_KERNEL_CHECK("addPartialsKernel");
}

void launchClipFactor(double* sum, const float* scaleState, float maxNorm, float* stats,
                      float* factor, cudaStream_t stream) {
    clipFactorKernel<<<1, 1, 0, stream>>>(sum, scaleState, maxNorm, stats, factor);
    TB_KERNEL_CHECK("clipFactorKernel");
}

void launchScaleBy(float* g, int64_t n, const float* factor, cudaStream_t stream) {
    if (n == 0)
        return;
    scaleByKernel<<<gridFor(n), kBlock, 0, stream>>>(g, n, factor);
    TB_KERNEL_CHECK("scaleByKernel");
}

void launchSgdStep(float* param, const float* grad, float* momentumBuf, int64_t n,
                   const SgdParams& p, const float* scaleState, const float* foundInf,
                   cudaStream_t stream) {
    if (n == 0)
        return;
    sgdKernel<<<gridFor(n), kBlock, 0, stream>>>(param, grad, momentumBuf, n, p, scaleState,
                                                 foundInf);
    TB_KERNEL_CHECK("sgdKernel");
}

void launchAdamwStep(float* param, const float* grad, float* expAvg, float* expAvgSq, int64_t n,
                     const AdamWParams& p, const float* scaleState, const float* foundInf,
                     const float* skipped, cudaStream_t stream) {
    if (n == 0)
        return;
    adamwKernel<<<gridFor(n), kBlock, 0, stream>>>(param, grad, expAvg, expAvgSq, n, p, scaleState,
                                                   foundInf, skipped);
    TB_KERNEL_CHECK("adamwKernel");
}

} // namespace tb::cuda

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

} // namespace

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

// Fused softmax cross-entropy in two passes that scale with both the batch and the vocabulary: a
// warp a row (max, sum of exponentials and the gradient read lane-strided, then a shuffle tree)
// writes the row's loss and hit, then one block adds the rows in a fixed order. The sums have the
// same bits every run, and nothing waits for the host. The math is loss_math.h's (the CPU's),
// spread over the lanes. A segmentation's per-pixel loss runs the CPU's row function a thread a
// pixel (a few dozen classes, read a plane apart, so neighbouring threads read neighbours).
#include "cudacheck.h"
#include "dtypeio.cuh"
#include "kernels.h"

#include "backend/kernels/loss_math.h"

#include <cmath>

namespace tb::cuda {

namespace {

constexpr int kWarp = 32;
constexpr int kWarpsPerBlock = kBlock / kWarp;

// Max with the first index on ties, as the CPU's left-to-right scan picks it; every lane ends
// with the same pair (a total order under the butterfly).
__device__ __forceinline__ void warpArgMax(float& value, int64_t& index) {
    for (int offset = kWarp / 2; offset > 0; offset /= 2) {
        const float v = __shfl_xor_sync(0xffffffffu, value, offset);
        const int64_t i = __shfl_xor_sync(0xffffffffu, index, offset);
        if (v > value || (v == value && i < index)) {
            value = v;
            index = i;
        }
    }
}

__device__ __forceinline__ float warpSum(float v) {
    for (int offset = kWarp / 2; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// One warp a row: rowLoss[row] and rowCorrect[row], and dlogits' row when it is not null. With
// label smoothing eps the target is (1 - eps) on the label plus eps / classes everywhere.
template <typename InIo, typename GradIo>
__global__ void softmaxCrossEntropyRowsKernel(const typename InIo::Storage* logits,
                                              const int32_t* labels, int64_t n, int64_t classes,
                                              float smoothing, const float* gradScale,
                                              float batchDivisor, typename GradIo::Storage* dlogits,
                                              float* rowLoss, float* rowCorrect) {
    // As the CPU: gradScale / (n * divisor), rounded the same way.
    const float scale = (gradScale ? gradScale[0] : 1.0f) / batchDivisor;
    const int lane = threadIdx.x % kWarp;
    for (int64_t row = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
         row < n; row += static_cast<int64_t>(gridDim.x) * blockDim.x / kWarp) {
        const int64_t base = row * classes;
        const int label = labels[row];
        if (label < 0 || label >= classes) {
            // An invalid label poisons the loss, which the trainer reports.
            if (dlogits)
                for (int64_t j = lane; j < classes; j += kWarp)
                    GradIo::store(dlogits, base + j, 0.0f);
            if (lane == 0) {
                rowLoss[row] = NAN;
                rowCorrect[row] = 0.0f;
            }
            continue;
        }
        float maxv = -INFINITY;
        int64_t argmax = classes;
        for (int64_t j = lane; j < classes; j += kWarp) {
            const float v = InIo::load(logits, base + j);
            if (v > maxv) {
                maxv = v;
                argmax = j;
            }
        }
        warpArgMax(maxv, argmax);
        float sum = 0.0f, sumLogits = 0.0f;
        for (int64_t j = lane; j < classes; j += kWarp) {
            const float v = InIo::load(logits, base + j);
            sum += expf(v - maxv);
            sumLogits += v;
        }
        sum = warpSum(sum);
        sumLogits = warpSum(sumLogits);
        const float logSum = logf(sum) + maxv;
        const float nll = logSum - InIo::load(logits, base + label);
        const float smoothTerm = logSum - sumLogits / static_cast<float>(classes);
        if (dlogits) {
            const float invSum = 1.0f / sum;
            const float offTarget = smoothing / static_cast<float>(classes);
            for (int64_t j = lane; j < classes; j += kWarp) {
                const float prob = expf(InIo::load(logits, base + j) - maxv) * invSum;
                const float target = offTarget + (j == label ? 1.0f - smoothing : 0.0f);
                GradIo::store(dlogits, base + j, scale * (prob - target));
            }
        }
        if (lane == 0) {
            rowLoss[row] = (1.0f - smoothing) * nll + smoothing * smoothTerm;
            rowCorrect[row] = argmax == label ? 1.0f : 0.0f;
        }
    }
}

// A thread a pixel: its loss and hit (0 for an ignored pixel, whose gradient is zeroed).
template <typename InIo, typename GradIo>
__global__ void pixelCrossEntropyKernel(const typename InIo::Storage* logits, const int32_t* labels,
                                        int64_t n, int64_t classes, int64_t hw, int32_t ignoreIndex,
                                        const float* gradScale, float countedDivisor,
                                        typename GradIo::Storage* dlogits, float* pixelLoss,
                                        float* pixelCorrect) {
    const float scale =
        countedDivisor > 0.0f ? (gradScale ? gradScale[0] : 1.0f) / countedDivisor : 0.0f;
    TB_GRID_STRIDE(p, n * hw) {
        const int64_t base = p / hw * classes * hw + p % hw;
        const int label = labels[p];
        if (label == ignoreIndex || label < 0 || label >= classes) {
            if (dlogits)
                for (int64_t j = 0; j < classes; ++j)
                    GradIo::store(dlogits, base + j * hw, 0.0f);
            // An invalid label poisons the loss, which the trainer reports.
            pixelLoss[p] = label == ignoreIndex ? 0.0f : NAN;
            pixelCorrect[p] = 0.0f;
            continue;
        }
        auto load = [&](int j) { return InIo::load(logits, base + j * hw); };
        auto store = [&](int j, float g) { GradIo::store(dlogits, base + j * hw, g); };
        const math::RowLoss r = math::softmaxCrossEntropyRow(
            static_cast<int>(classes), label, 0.0f, load, scale, store, dlogits != nullptr);
        pixelLoss[p] = r.loss;
        pixelCorrect[p] = r.correct ? 1.0f : 0.0f;
    }
}

// One block: the rows' losses and hits added in a fixed order (a thread's rows in turn, then a
// tree in shared memory); lossSum[0] += the loss summed / meanOver (nothing when it is 0),
// lossSum[1] += the hits.
__global__ void addRowLossesKernel(const float* rowLoss, const float* rowCorrect, int64_t n,
                                   float meanOver, float* lossSum) {
    __shared__ float lossPart[kBlock];
    __shared__ float correctPart[kBlock];
    float loss = 0.0f, correct = 0.0f;
    for (int64_t row = threadIdx.x; row < n; row += blockDim.x) {
        loss += rowLoss[row];
        correct += rowCorrect[row];
    }
    lossPart[threadIdx.x] = loss;
    correctPart[threadIdx.x] = correct;
    __syncthreads();
    for (int stride = kBlock / 2; stride > 0; stride /= 2) {
        if (static_cast<int>(threadIdx.x) < stride) {
            lossPart[threadIdx.x] += lossPart[threadIdx.x + stride];
            correctPart[threadIdx.x] += correctPart[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        if (meanOver > 0.0f)
            lossSum[0] += lossPart[0] / meanOver;
        lossSum[1] += correctPart[0];
    }
}

} // namespace

void launchSoftmaxCrossEntropy(const void* logits, DType logitsType, const int32_t* labels,
                               int64_t n, int64_t classes, float smoothing, float* lossSum,
                               void* dlogits, DType dlogitsType, const float* gradScale,
                               float divisor, float* rowScratch, cudaStream_t stream) {
    if (n == 0)
        return;
    if (classes <= 0 || classes > INT32_MAX)
        throw Error("softmaxCrossEntropy: invalid class count");
    const float batchDivisor = static_cast<float>(n) * divisor;
    const unsigned blocks = static_cast<unsigned>(
        std::clamp<int64_t>((n + kWarpsPerBlock - 1) / kWarpsPerBlock, 1, int64_t{1} << 20));
    dispatchFloat(logitsType, "softmaxCrossEntropy", [&](auto inIo) {
        using InIo = decltype(inIo);
        dispatchFloat(dlogits ? dlogitsType : logitsType, "softmaxCrossEntropy", [&](auto gIo) {
            using GradIo = decltype(gIo);
            softmaxCrossEntropyRowsKernel<InIo, GradIo><<<blocks, kBlock, 0, stream>>>(
                in<InIo>(logits), labels, n, classes, smoothing, gradScale, batchDivisor,
                dlogits ? out<GradIo>(dlogits) : nullptr, rowScratch, rowScratch + n);
        });
    });
    TB_KERNEL_CHECK("softmaxCrossEntropyRowsKernel");
    addRowLossesKernel<<<1, kBlock, 0, stream>>>(rowScratch, rowScratch + n, n,
                                                 static_cast<float>(n), lossSum);
    TB_KERNEL_CHECK("addRowLossesKernel");
}

void launchPixelCrossEntropy(const void* logits, DType logitsType, const int32_t* labels, int64_t n,
                             int64_t classes, int64_t hw, int32_t ignoreIndex, int64_t counted,
                             float* lossSum, void* dlogits, DType dlogitsType,
                             const float* gradScale, float divisor, float* pixelScratch,
                             cudaStream_t stream) {
    const int64_t pixels = n * hw;
    if (pixels == 0)
        return;
    if (classes <= 0 || classes > INT32_MAX)
        throw Error("pixelCrossEntropy: invalid class count");
    const float countedDivisor = static_cast<float>(counted) * divisor;
    dispatchFloat(logitsType, "pixelCrossEntropy", [&](auto inIo) {
        using InIo = decltype(inIo);
        dispatchFloat(dlogits ? dlogitsType : logitsType, "pixelCrossEntropy", [&](auto gIo) {
            using GradIo = decltype(gIo);
            pixelCrossEntropyKernel<InIo, GradIo><<<gridFor(pixels), kBlock, 0, stream>>>(
                in<InIo>(logits), labels, n, classes, hw, ignoreIndex, gradScale, countedDivisor,
                dlogits ? out<GradIo>(dlogits) : nullptr, pixelScratch, pixelScratch + pixels);
        });
    });
    TB_KERNEL_CHECK("pixelCrossEntropyKernel");
    addRowLossesKernel<<<1, kBlock, 0, stream>>>(pixelScratch, pixelScratch + pixels, pixels,
                                                 static_cast<float>(counted), lossSum);
    TB_KERNEL_CHECK("addRowLossesKernel");
}

} // namespace tb::cuda

// Fused softmax cross-entropy: one block walks the rows with the shared row function and reduces
// loss and #correct in a fixed order, so the sums are deterministic and need no host sync.
#include "cudacheck.h"
#include "dtypeio.cuh"
#include "kernels.h"

#include "backend/kernels/loss_math.h"

#include <cmath>

namespace tb::cuda {

namespace {

constexpr int kLossBlock = 256;

template <typename InIo, typename GradIo>
__global__ void softmaxCrossEntropyKernel(const typename InIo::Storage* logits,
                                          const int32_t* labels, int64_t n, int classes,
                                          float smoothing, float* lossSum,
                                          typename GradIo::Storage* dlogits, const float* gradScale,
                                          float batchDivisor) {
    __shared__ float lossPart[kLossBlock];
    __shared__ float correctPart[kLossBlock];
    // As the CPU: gradScale / (n * divisor), rounded the same way.
    const float scale = (gradScale ? gradScale[0] : 1.0f) / batchDivisor;
    float loss = 0.0f, correct = 0.0f;
    for (int64_t row = threadIdx.x; row < n; row += blockDim.x) {
        const int64_t base = row * classes;
        const int label = labels[row];
        if (label < 0 || label >= classes) {
            loss = NAN; // an invalid label poisons the loss, which the trainer reports
            if (dlogits)
                for (int j = 0; j < classes; ++j)
                    GradIo::store(dlogits, base + j, 0.0f);
            continue;
        }
        auto load = [&](int j) { return InIo::load(logits, base + j); };
        auto store = [&](int j, float g) { GradIo::store(dlogits, base + j, g); };
        const math::RowLoss r = math::softmaxCrossEntropyRow(classes, label, smoothing, load, scale,
                                                             store, dlogits != nullptr);
        loss += r.loss;
        correct += r.correct ? 1.0f : 0.0f;
    }
    lossPart[threadIdx.x] = loss;
    correctPart[threadIdx.x] = correct;
    __syncthreads();
    for (int stride = kLossBlock / 2; stride > 0; stride /= 2) {
        if (static_cast<int>(threadIdx.x) < stride) {
            lossPart[threadIdx.x] += lossPart[threadIdx.x + stride];
            correctPart[threadIdx.x] += correctPart[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        lossSum[0] += lossPart[0] / static_cast<float>(n);
        lossSum[1] += correctPart[0];
    }
}

} // namespace

void launchSoftmaxCrossEntropy(const void* logits, DType logitsType, const int32_t* labels,
                               int64_t n, int64_t classes, float smoothing, float* lossSum,
                               void* dlogits, DType dlogitsType, const float* gradScale,
                               float divisor, cudaStream_t stream) {
    if (n == 0)
        return;
    if (classes <= 0 || classes > INT32_MAX)
        throw Error("softmaxCrossEntropy: invalid class count");
    const float batchDivisor = static_cast<float>(n) * divisor;
    dispatchFloat(logitsType, "softmaxCrossEntropy", [&](auto inIo) {
        using InIo = decltype(inIo);
        dispatchFloat(dlogits ? dlogitsType : logitsType, "softmaxCrossEntropy", [&](auto gIo) {
            using GradIo = decltype(gIo);
            softmaxCrossEntropyKernel<InIo, GradIo><<<1, kLossBlock, 0, stream>>>(
                in<InIo>(logits), labels, n, static_cast<int>(classes), smoothing, lossSum,
                dlogits ? out<GradIo>(dlogits) : nullptr, gradScale, batchDivisor);
        });
    });
    TB_KERNEL_CHECK("softmaxCrossEntropyKernel");
}

} // namespace tb::cuda

// CpuBackend fused softmax cross-entropy, over the row math shared with the CUDA kernel.
#include "backend/cpu/cpubackend.h"

#include "backend/cpu/parallel.h"
#include "backend/kernels/loss_math.h"
#include "core/errors.h"

#include <string>
#include <vector>

namespace tb {

void CpuBackend::softmaxCrossEntropy(const Tensor& logits, const Tensor& labels, float smoothing,
                                     Tensor& lossSum, Tensor* dlogits, const Tensor* gradScale,
                                     float divisor) {
    const int64_t n = logits.dim(0);
    const auto classes = static_cast<int>(logits.numel() / n);
    const Tensor lf = asF32(logits, 0);
    Tensor gf = dlogits ? f32Target(*dlogits, 1) : Tensor();
    const float* pl = lf.data<float>();
    const int32_t* y = labels.data<int32_t>();
    float* pg = dlogits ? gf.data<float>() : nullptr;
    const float scale =
        (gradScale ? gradScale->data<float>()[0] : 1.0f) / (static_cast<float>(n) * divisor);
    for (int64_t i = 0; i < n; ++i)
        if (y[i] < 0 || y[i] >= classes)
            throw Error("label " + std::to_string(y[i]) + " at batch row " + std::to_string(i) +
                        " is outside 0.." + std::to_string(classes - 1));
    std::vector<double> rowLoss(static_cast<std::size_t>(n));
    std::vector<uint8_t> rowCorrect(static_cast<std::size_t>(n));
    parallelFor(
        n,
        [&](int64_t i) {
            const float* row = pl + i * classes;
            float* grow = pg ? pg + i * classes : nullptr;
            const auto r = math::softmaxCrossEntropyRow(
                classes, y[i], smoothing, [&](int j) { return row[j]; }, scale,
                [&](int j, float g) { grow[j] = g; }, grow != nullptr);
            rowLoss[static_cast<std::size_t>(i)] = r.loss;
            rowCorrect[static_cast<std::size_t>(i)] = r.correct ? 1 : 0;
        },
        256);
    // Summed in row order so the result does not depend on the thread count.
    double total = 0.0;
    int64_t correct = 0;
    for (int64_t i = 0; i < n; ++i) {
        total += rowLoss[static_cast<std::size_t>(i)];
        correct += rowCorrect[static_cast<std::size_t>(i)];
    }
    float* acc = lossSum.data<float>();
    acc[0] += static_cast<float>(total / static_cast<double>(n));
    acc[1] += static_cast<float>(correct);
    if (dlogits)
        storeF32(gf, *dlogits);
}

} // namespace tb

// CpuBackend fused softmax cross-entropy, per row (classification) and per pixel (segmentation),
// over the row math shared with the CUDA kernels.
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

void CpuBackend::pixelCrossEntropy(const Tensor& logits, const Tensor& labels, int32_t ignoreIndex,
                                   int64_t counted, Tensor& lossSum, Tensor* dlogits,
                                   const Tensor* gradScale, float divisor) {
    if (logits.shape().rank() != 4 ||
        labels.numel() != logits.dim(0) * logits.dim(2) * logits.dim(3))
        throw Error("pixelCrossEntropy: logits " + logits.shape().toString() +
                    " need (n, classes, h, w) and labels n x h x w, not " +
                    labels.shape().toString());
    const int64_t n = logits.dim(0), hw = logits.dim(2) * logits.dim(3), width = logits.dim(3);
    const auto classes = static_cast<int>(logits.dim(1));
    const int32_t* y = labels.data<int32_t>();
    for (int64_t p = 0; p < n * hw; ++p)
        if (y[p] != ignoreIndex && (y[p] < 0 || y[p] >= classes))
            throw Error("label " + std::to_string(y[p]) + " at image " + std::to_string(p / hw) +
                        ", pixel (" + std::to_string(p % hw / width) + ", " +
                        std::to_string(p % width) + ") is outside 0.." +
                        std::to_string(classes - 1) + " and not the ignored " +
                        std::to_string(ignoreIndex));
    const Tensor lf = asF32(logits, 0);
    Tensor gf = dlogits ? f32Target(*dlogits, 1) : Tensor();
    const float* pl = lf.data<float>();
    float* pg = dlogits ? gf.data<float>() : nullptr;
    const float scale = counted > 0 ? (gradScale ? gradScale->data<float>()[0] : 1.0f) /
                                          (static_cast<float>(counted) * divisor)
                                    : 0.0f;
    std::vector<double> pixelLoss(static_cast<std::size_t>(n * hw));
    std::vector<uint8_t> pixelCorrect(static_cast<std::size_t>(n * hw));
    parallelFor(
        n * hw,
        [&](int64_t p) {
            // A pixel's classes lie a plane apart.
            const int64_t base = p / hw * classes * hw + p % hw;
            if (y[p] == ignoreIndex) {
                if (pg)
                    for (int j = 0; j < classes; ++j)
                        pg[base + j * hw] = 0.0f;
                return;
            }
            const auto r = math::softmaxCrossEntropyRow(
                classes, y[p], 0.0f, [&](int j) { return pl[base + j * hw]; }, scale,
                [&](int j, float g) { pg[base + j * hw] = g; }, pg != nullptr);
            pixelLoss[static_cast<std::size_t>(p)] = r.loss;
            pixelCorrect[static_cast<std::size_t>(p)] = r.correct ? 1 : 0;
        },
        1024);
    // Summed in pixel order so the result does not depend on the thread count.
    double total = 0.0;
    int64_t correct = 0;
    for (int64_t p = 0; p < n * hw; ++p) {
        total += pixelLoss[static_cast<std::size_t>(p)];
        correct += pixelCorrect[static_cast<std::size_t>(p)];
    }
    float* acc = lossSum.data<float>();
    if (counted > 0)
        acc[0] += static_cast<float>(total / static_cast<double>(counted));
    acc[1] += static_cast<float>(correct);
    if (dlogits)
        storeF32(gf, *dlogits);
}

} // namespace tb

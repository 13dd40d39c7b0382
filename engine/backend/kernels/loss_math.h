// Softmax cross-entropy for one row of logits, shared by the CPU loop and the CUDA kernel.
#pragma once

#include "core/hostdevice.h"

#include <cmath>

namespace tb::math {

struct RowLoss {
    float loss;
    bool correct;
};

// logits: a row of `classes` values read through load(j) (any storage dtype). With label
// smoothing eps the target is (1 - eps) on the label plus eps / classes everywhere, as
// torch.nn.CrossEntropyLoss(label_smoothing=eps). When grad is not null, grad(j, value) is
// called with gradScale * (softmax_j - target_j).
template <typename Load, typename StoreGrad>
TB_HD RowLoss softmaxCrossEntropyRow(int classes, int label, float smoothing, Load load,
                                     float gradScale, StoreGrad storeGrad, bool wantGrad) {
    float maxv = load(0);
    int argmax = 0;
    for (int j = 1; j < classes; ++j) {
        const float v = load(j);
        if (v > maxv) {
            maxv = v;
            argmax = j;
        }
    }
    float sum = 0.0f;
    float sumLogits = 0.0f;
    for (int j = 0; j < classes; ++j) {
        const float v = load(j);
        sum += expf(v - maxv);
        sumLogits += v;
    }
    const float logSum = logf(sum) + maxv;
    const float offTarget = smoothing / static_cast<float>(classes);
    // -sum_j target_j * log_softmax_j
    const float nll = logSum - load(label);
    const float smoothTerm = logSum - sumLogits / static_cast<float>(classes);
    const float loss = (1.0f - smoothing) * nll + smoothing * smoothTerm;
    if (wantGrad) {
        const float invSum = 1.0f / sum;
        for (int j = 0; j < classes; ++j) {
            const float prob = expf(load(j) - maxv) * invSum;
            const float target = offTarget + (j == label ? 1.0f - smoothing : 0.0f);
            storeGrad(j, gradScale * (prob - target));
        }
    }
    return {loss, argmax == label};
}

} // namespace tb::math

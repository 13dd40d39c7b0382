// Logits and labels as the loss reads them: one prediction a row. A language model's
// (n, t, classes) logits and (n, t) targets are n * t rows, a prediction at every position; a
// classifier's (n, classes) and (n) pass through.
#pragma once

#include "core/tensor.h"

namespace tb {

inline Tensor logitRows(const Tensor& logits) {
    const Shape& s = logits.shape();
    return s.rank() == 3 ? logits.view({s[0] * s[1], s[2]}) : logits;
}

inline Tensor labelRows(const Tensor& labels) {
    return labels.shape().rank() == 2 ? labels.view({labels.numel()}) : labels;
}

} // namespace tb

// ValidationTally: the confusion matrix and the first misclassified samples of a validation
// pass, from each batch's logits read back to the host.
#pragma once

#include "core/tensor.h"
#include "events/events.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

class ValidationTally {
public:
    ValidationTally(int classes, std::vector<std::string> classNames);

    // One batch: logits (n x classes, row-major f32), labels (n), and the batch's host inputs
    // (n samples, kept for the misclassified ones); firstIndex is the batch's first sample's
    // index in the validation split.
    void add(const float* logits, const int32_t* labels, int64_t n, const Tensor& inputs,
             int64_t firstIndex);

    const ValidationReport& report() const { return m_report; }
    ValidationReport take() { return std::move(m_report); }

private:
    ValidationReport m_report;
};

} // namespace tb

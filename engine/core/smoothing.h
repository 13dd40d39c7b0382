// TensorBoard's debiased exponential moving average of a scalar series: the loss chart's
// smoothing, the comparison's, and wherever a smoothed figure is printed.
#pragma once

#include <cstdint>

namespace tb {

// last = last*w + (1-w)*x; smoothed = last / (1 - w^n) with n the finite values seen, so the
// first points are not pulled towards zero.
class DebiasedEma {
public:
    explicit DebiasedEma(double weight = 0.6) : m_weight(weight) {}

    double weight() const { return m_weight; }
    // Starts over with a new weight in [0, 1).
    void reset(double weight);
    // The smoothed value after x; a non-finite x is returned as is and leaves the state alone.
    double add(double x);

private:
    double m_weight;
    double m_last = 0.0;
    int64_t m_count = 0;
};

} // namespace tb

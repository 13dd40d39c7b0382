// DebiasedEma: the recurrence of TensorBoard's smoothing slider.
#include "core/smoothing.h"

#include <cmath>

namespace tb {

void DebiasedEma::reset(double weight) {
    m_weight = weight;
    m_last = 0.0;
    m_count = 0;
}

double DebiasedEma::add(double x) {
    if (!std::isfinite(x))
        return x;
    m_last = m_last * m_weight + (1.0 - m_weight) * x;
    ++m_count;
    const double debias = 1.0 - std::pow(m_weight, static_cast<double>(m_count));
    return m_last / debias;
}

} // namespace tb

// Extent: the smallest and largest finite value seen so far, kept up to date as points arrive
// so autoscaling never has to walk 200,000 points per replot.
#pragma once

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb::ui {

struct Extent {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();

    // Non-finite values (a NaN loss, a gap) never widen the extent.
    void include(double v) {
        if (!std::isfinite(v))
            return;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    bool isEmpty() const { return lo > hi; }

    // The extent widened by `fraction` of its span on both sides; a single value gets a
    // margin of its own size (or 1 around zero) so it is not drawn on the frame.
    QCPRange padded(double fraction = 0.05) const {
        if (isEmpty())
            return QCPRange(0.0, 1.0);
        const double span = hi - lo;
        const double pad = span > 0.0 ? span * fraction : std::max(std::abs(hi) * 0.1, 0.5);
        return QCPRange(lo - pad, hi + pad);
    }
    // From zero up to a little above the largest value: for sizes, power and percentages.
    QCPRange fromZero(double atLeast = 0.0) const {
        const double top = std::max(isEmpty() ? 1.0 : hi, atLeast);
        return QCPRange(0.0, top > 0.0 ? top * 1.05 : 1.0);
    }
    // A factor of two beyond the extent on a log axis (loss scale); empty or non-positive: 1..2^17.
    QCPRange paddedLog() const {
        if (isEmpty() || lo <= 0.0)
            return QCPRange(1.0, 131072.0);
        return QCPRange(lo / 2.0, hi * 2.0);
    }
};

} // namespace tb::ui

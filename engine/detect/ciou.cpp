// CIoU through forward-mode differentiation: every intermediate carries its derivatives with
// respect to the first box's four coordinates, with PyTorch's conventions where the function
// has a kink (minimum and maximum split the gradient on a tie; clamp passes it at the bound).
#include "detect/ciou.h"

#include <cmath>
#include <numbers>

namespace tb::detect {

namespace {

struct Dual {
    double v;
    std::array<double, 4> d{};
};

Dual constant(double v) {
    return {v, {}};
}
Dual variable(double v, int i) {
    Dual x{v, {}};
    x.d[static_cast<std::size_t>(i)] = 1.0;
    return x;
}

template <typename F> Dual combine(const Dual& a, const Dual& b, double value, F rule) {
    Dual r{value, {}};
    for (std::size_t i = 0; i < 4; ++i)
        r.d[i] = rule(a.d[i], b.d[i]);
    return r;
}

Dual operator+(const Dual& a, const Dual& b) {
    return combine(a, b, a.v + b.v, [](double x, double y) { return x + y; });
}
Dual operator-(const Dual& a, const Dual& b) {
    return combine(a, b, a.v - b.v, [](double x, double y) { return x - y; });
}
Dual operator*(const Dual& a, const Dual& b) {
    return combine(a, b, a.v * b.v, [&](double x, double y) { return x * b.v + a.v * y; });
}
Dual operator/(const Dual& a, const Dual& b) {
    return combine(a, b, a.v / b.v,
                   [&](double x, double y) { return (x * b.v - a.v * y) / (b.v * b.v); });
}
// torch.maximum / minimum: the gradient goes to the larger (smaller) one, half to each on a tie.
Dual maximum(const Dual& a, const Dual& b) {
    const double wa = a.v > b.v ? 1.0 : a.v == b.v ? 0.5 : 0.0;
    return combine(a, b, std::max(a.v, b.v),
                   [&](double x, double y) { return wa * x + (1.0 - wa) * y; });
}
Dual minimum(const Dual& a, const Dual& b) {
    const double wa = a.v < b.v ? 1.0 : a.v == b.v ? 0.5 : 0.0;
    return combine(a, b, std::min(a.v, b.v),
                   [&](double x, double y) { return wa * x + (1.0 - wa) * y; });
}
// clamp(min=0): the gradient passes where x >= 0.
Dual clampLow(const Dual& a) {
    Dual r = a;
    if (a.v < 0) {
        r.v = 0;
        r.d = {};
    }
    return r;
}
Dual square(const Dual& a) {
    return a * a;
}
Dual atan(const Dual& a) {
    Dual r{std::atan(a.v), {}};
    for (std::size_t i = 0; i < 4; ++i)
        r.d[i] = a.d[i] / (1.0 + a.v * a.v);
    return r;
}

} // namespace

CiouResult ciou(const std::array<double, 4>& first, const std::array<double, 4>& second) {
    constexpr double kEps = 1e-7;
    const Dual x1 = variable(first[0], 0), y1 = variable(first[1], 1), x2 = variable(first[2], 2),
               y2 = variable(first[3], 3);
    const Dual X1 = constant(second[0]), Y1 = constant(second[1]), X2 = constant(second[2]),
               Y2 = constant(second[3]), eps = constant(kEps);
    const Dual w1 = x2 - x1, h1 = y2 - y1 + eps, w2 = X2 - X1, h2 = Y2 - Y1 + eps;
    const Dual inter =
        clampLow(minimum(x2, X2) - maximum(x1, X1)) * clampLow(minimum(y2, Y2) - maximum(y1, Y1));
    const Dual unionArea = w1 * h1 + w2 * h2 - inter + eps;
    const Dual iou = inter / unionArea;
    const Dual cw = maximum(x2, X2) - minimum(x1, X1);
    const Dual ch = maximum(y2, Y2) - minimum(y1, Y1);
    const Dual c2 = square(cw) + square(ch) + eps;
    const Dual rho2 = (square(X1 + X2 - x1 - x2) + square(Y1 + Y2 - y1 - y2)) / constant(4.0);
    const Dual v = constant(4.0 / (std::numbers::pi * std::numbers::pi)) *
                   square(atan(w2 / h2) - atan(w1 / h1));
    const Dual alpha = constant(v.v / (v.v - iou.v + (1.0 + kEps))); // no gradient
    const Dual result = iou - (rho2 / c2 + v * alpha);
    return {result.v, result.d};
}

} // namespace tb::detect

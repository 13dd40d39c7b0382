// How the charts write numbers into CSV: full precision, a missing value as an empty field.
#pragma once

#include <QString>

#include <cmath>
#include <optional>

namespace tb::ui {

inline QString csvField(double v) {
    return std::isfinite(v) ? QString::number(v, 'g', 12) : QString();
}

inline QString csvField(const std::optional<double>& v) {
    return v ? csvField(*v) : QString();
}

} // namespace tb::ui

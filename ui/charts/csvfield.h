// How the charts write CSV fields: numbers at full precision, a missing value as an empty
// field, text quoted where it needs to be.
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

// Text quoted as RFC 4180 asks when it holds a comma, quote or line break.
inline QString csvField(const QString& text) {
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
        !text.contains(QLatin1Char('\n')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

} // namespace tb::ui

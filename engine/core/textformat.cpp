// formatDuration, formatCount, formatMagnitude and formatString.
#include "core/textformat.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <iterator>

namespace tb {

std::string formatDuration(double seconds) {
    const long long s = std::isfinite(seconds) && seconds > 0 ? std::llround(seconds) : 0;
    char buf[48];
    if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%lld h %02lld min", s / 3600, s % 3600 / 60);
    else if (s >= 60)
        std::snprintf(buf, sizeof buf, "%lld min %02lld s", s / 60, s % 60);
    else
        std::snprintf(buf, sizeof buf, "%lld s", s);
    return buf;
}

std::string formatCount(int64_t n) {
    const bool negative = n < 0;
    // The magnitude as unsigned: -INT64_MIN does not fit an int64_t.
    const uint64_t magnitude = negative ? uint64_t(-(n + 1)) + 1 : uint64_t(n);
    const std::string digits = std::to_string(magnitude);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return negative ? "-" + out : out;
}

std::string formatCountOf(int64_t n, const std::string& noun) {
    return formatCount(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string formatMagnitude(int64_t n) {
    if (n < 1000)
        return std::to_string(std::max<int64_t>(n, 0));
    constexpr const char* kUnits[] = {"K", "M", "G", "T", "P", "E"};
    double v = static_cast<double>(n) / 1e3;
    std::size_t unit = 0;
    // 999,950 rounds to 1000K: the next unit then, as 1.00M.
    while (v >= 999.5 && unit + 1 < std::size(kUnits)) {
        v /= 1e3;
        ++unit;
    }
    char buf[32];
    const int decimals = v >= 99.95 ? 0 : v >= 9.995 ? 1 : 2;
    std::snprintf(buf, sizeof buf, "%.*f%s", decimals, v, kUnits[unit]);
    return buf;
}

std::string formatString(const char* format, ...) {
    char buffer[1024];
    va_list args;
    va_start(args, format);
    const int n = std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    return n < 0 ? std::string()
                 : std::string(buffer, std::min(static_cast<std::size_t>(n), sizeof buffer - 1));
}

} // namespace tb

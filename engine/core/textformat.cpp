// formatDuration, formatCount, formatMagnitude, formatString, joined and splitCommaList.
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

std::string joined(const std::vector<std::string>& items, std::string_view separator) {
    std::string out;
    for (const std::string& item : items) {
        if (&item != &items.front())
            out += separator;
        out += item;
    }
    return out;
}

std::vector<std::string> splitCommaList(std::string_view text) {
    std::vector<std::string> pieces;
    for (std::size_t at = 0; at <= text.size();) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        if (comma > at)
            pieces.emplace_back(text.substr(at, comma - at));
        at = comma + 1;
    }
    return pieces;
}

} // namespace tb

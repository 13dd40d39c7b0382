// How the engine, the CLI and the window write durations and counts, so they say the same.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

// "42 s", "3 min 07 s", "1 h 05 min"; negative or non-finite seconds read as 0.
std::string formatDuration(double seconds);
// A count with thousands separated by commas: 1,234,567.
std::string formatCount(int64_t n);
// A count and a noun that takes an s when it is not one: "1 run", "9 runs", "1,200 trials".
std::string formatCountOf(int64_t n, const std::string& noun);
// A count to three significant figures with K, M or G (thousands, millions, billions), for
// narrow columns: 288, 18.4K, 332K, 5.31M, 1.00G; negative counts as 0.
std::string formatMagnitude(int64_t n);
// printf's formatting into a std::string (up to 1 KiB), for figures inside sentences.
std::string formatString(const char* format, ...) __attribute__((format(printf, 1, 2)));
// The items with `separator` between them: joined({"a", "b"}, ", ") is "a, b".
std::string joined(const std::vector<std::string>& items, std::string_view separator);
// The pieces of a comma-separated list, empty ones left out: "a,,b" gives {"a", "b"}.
std::vector<std::string> splitCommaList(std::string_view text);

} // namespace tb

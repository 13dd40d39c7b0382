// makeRunId(): a timestamp and random bits that no seed shared between processes can repeat.
#include "core/runid.h"

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <random>

namespace tb {

std::string makeRunId() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
    // Straight from the OS each time: a per-process generator seeded with 32 bits would give
    // processes started together correlated ids.
    std::random_device os;
    const uint64_t bits = (uint64_t{os()} << 32 | os()) & 0xffffffffffffull;
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "%012llx", static_cast<unsigned long long>(bits));
    return std::string(stamp) + "-" + suffix;
}

} // namespace tb

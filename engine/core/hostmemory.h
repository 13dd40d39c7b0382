// How much memory this process can still take on the host: the numbers behind failing fast
// with a clear error instead of a bare std::bad_alloc halfway through a run.
#pragma once

#include <cstdint>
#include <optional>

namespace tb {

struct HostMemory {
    uint64_t available = 0; // MemAvailable, capped by the cgroup's limit minus its usage
    uint64_t total = 0;     // MemTotal, capped by the cgroup's limit
};

// Reads /proc/meminfo and, when set, the cgroup v2 limit (/sys/fs/cgroup/memory.max). Missing
// when /proc cannot be read: callers then skip their check rather than guess.
std::optional<HostMemory> hostMemory();

} // namespace tb

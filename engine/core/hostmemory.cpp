// hostMemory: /proc/meminfo and the cgroup v2 memory files.
#include "core/hostmemory.h"

#include "core/processmemory.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace tb {

namespace {

// A cgroup v2 file of this process's group ("0::/path" in /proc/self/cgroup) holding one number
// of bytes; "max" (no limit) and cgroup v1 read as missing.
std::optional<uint64_t> cgroupValue(const std::string& name) {
    std::ifstream self("/proc/self/cgroup");
    std::string line, group;
    while (std::getline(self, line))
        if (line.starts_with("0::"))
            group = line.substr(3);
    if (group.empty())
        return std::nullopt;
    std::ifstream in("/sys/fs/cgroup" + (group == "/" ? std::string() : group) + "/" + name);
    uint64_t bytes = 0;
    if (in >> bytes)
        return bytes;
    return std::nullopt;
}

} // namespace

std::optional<HostMemory> hostMemory() {
    const auto available = procKibField("/proc/meminfo", "MemAvailable");
    const auto total = procKibField("/proc/meminfo", "MemTotal");
    if (!available || !total)
        return std::nullopt;
    HostMemory m{*available, *total};
    const auto limit = cgroupValue("memory.max");
    const auto used = cgroupValue("memory.current");
    if (limit && used) {
        m.total = std::min(m.total, *limit);
        m.available = std::min(m.available, *limit > *used ? *limit - *used : 0);
    }
    return m;
}

} // namespace tb

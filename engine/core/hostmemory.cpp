// hostMemory: /proc/meminfo and the cgroup v2 memory files.
#include "core/hostmemory.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace tb {

namespace {

// A "Key:   12345 kB" line of /proc/meminfo, in bytes.
std::optional<uint64_t> meminfoField(const std::string& key) {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        if (!line.starts_with(key + ":"))
            continue;
        std::istringstream fields(line.substr(key.size() + 1));
        uint64_t kib = 0;
        if (fields >> kib)
            return kib * 1024;
        return std::nullopt;
    }
    return std::nullopt;
}

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
    const auto available = meminfoField("MemAvailable");
    const auto total = meminfoField("MemTotal");
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

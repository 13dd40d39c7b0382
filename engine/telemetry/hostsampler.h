// HostSampler: CPU utilisation, RAM and this process's memory, read from /proc.
#pragma once

#include "core/systemsample.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

// Not thread-safe (it keeps the previous CPU counters): use from one thread.
class HostSampler {
public:
    // procRoot: "/proc", or a folder with fake stat/meminfo/self/status files for tests.
    // Reads the CPU counters once so the first sample() already has a delta.
    explicit HostSampler(std::string procRoot = "/proc");

    // CPU utilisation (total and per core) since the previous call, RAM used (MemTotal -
    // MemAvailable) and total, process RSS (VmRSS) and peak RSS (VmHWM). A value that cannot be
    // read stays missing; CPU values are missing when no time has passed since the last call.
    HostSample sample();

private:
    struct CpuTimes {
        uint64_t busy = 0;
        uint64_t total = 0;
    };
    // [0] is the "cpu" line (all cores), then cpu0, cpu1, ...
    std::vector<CpuTimes> readCpuTimes() const;

    std::string m_root;
    std::vector<CpuTimes> m_previous;
};

} // namespace tb

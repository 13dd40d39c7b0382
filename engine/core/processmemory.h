// This process's memory as the kernel reports it in /proc (Linux).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tb {

// The value of a "Key:   12345 kB" line of a /proc file (meminfo, PID/status), in bytes;
// missing when the file or the key is absent.
std::optional<uint64_t> procKibField(const std::string& file, const std::string& key);

// This process's peak resident memory (VmHWM), if /proc tells.
std::optional<uint64_t> processPeakRssBytes();
// Starts VmHWM over from the current resident size (Linux 4.0+: "5" to /proc/self/clear_refs),
// so that the peak of one run in a process that ran others before is that run's; false where
// the kernel does not allow it (the peak then includes what came before).
bool resetProcessPeakRss();

} // namespace tb

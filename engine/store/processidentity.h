// Who writes a run: process id, host name and the process's start time, so a later opener can
// tell a live writer from a dead one (or from an unrelated process that reused its pid).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tb {

struct ProcessIdentity {
    int64_t pid = 0;
    std::string host;
    std::optional<int64_t> startTicks; // field 22 of /proc/PID/stat; missing when unreadable
};

// This process.
ProcessIdentity currentProcess();

// True when writer ran on this host and is certainly gone: kill(pid, 0) fails with ESRCH, or
// the pid now belongs to a process that started at another time. False when unsure (another
// host, no pid).
bool processGone(const ProcessIdentity& writer);

} // namespace tb

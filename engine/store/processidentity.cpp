// Process liveness checks through kill(pid, 0) and /proc/PID/stat.
#include "store/processidentity.h"

#include <cerrno>
#include <csignal>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace tb {

namespace {

struct ProcStat {
    char state = '?';   // field 3: R, S, D, Z (zombie), X (dead), ...
    int64_t startTicks; // field 22: clock ticks after boot
};

std::optional<ProcStat> procStat(int64_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!in || !std::getline(in, line))
        return std::nullopt;
    // The command name (field 2) may hold spaces and parentheses: fields resume after the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos)
        return std::nullopt;
    std::istringstream fields(line.substr(close + 1));
    ProcStat st{};
    std::string field;
    for (int i = 3; i <= 22; ++i) {
        if (!(fields >> field))
            return std::nullopt;
        if (i == 3)
            st.state = field.empty() ? '?' : field[0];
    }
    try {
        st.startTicks = std::stoll(field);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    return st;
}

std::string hostName() {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0)
        return {};
    return buf;
}

} // namespace

ProcessIdentity currentProcess() {
    ProcessIdentity id;
    id.pid = getpid();
    id.host = hostName();
    if (const auto st = procStat(id.pid))
        id.startTicks = st->startTicks;
    return id;
}

bool processGone(const ProcessIdentity& writer) {
    if (writer.pid <= 0 || writer.host.empty() || writer.host != hostName())
        return false;
    if (kill(static_cast<pid_t>(writer.pid), 0) != 0 && errno == ESRCH)
        return true;
    // The pid exists (EPERM: someone else's). A zombie is dead; another start time means the pid
    // was reused by an unrelated process.
    const auto st = procStat(writer.pid);
    if (!st)
        return false;
    if (st->state == 'Z' || st->state == 'X')
        return true;
    return writer.startTicks && st->startTicks != *writer.startTicks;
}

} // namespace tb

// Text forms of RunStatus and LogLevel, as stored in the database and printed by the CLI.
#include "core/errors.h"
#include "store/runrecord.h"

namespace tb {

std::string toString(RunStatus s) {
    switch (s) {
    case RunStatus::Running:
        return "running";
    case RunStatus::Completed:
        return "completed";
    case RunStatus::Stopped:
        return "stopped";
    case RunStatus::Failed:
        return "failed";
    case RunStatus::Interrupted:
        return "interrupted";
    }
    return "unknown";
}

RunStatus runStatusFromString(const std::string& s) {
    for (RunStatus st : {RunStatus::Running, RunStatus::Completed, RunStatus::Stopped,
                         RunStatus::Failed, RunStatus::Interrupted})
        if (s == toString(st))
            return st;
    throw ConfigError("status", "'" + s +
                                    "' is not a run status (running, completed, stopped, failed "
                                    "or interrupted)");
}

std::string toString(LogLevel level) {
    switch (level) {
    case LogLevel::Debug:
        return "debug";
    case LogLevel::Info:
        return "info";
    case LogLevel::Warning:
        return "warning";
    case LogLevel::Error:
        return "error";
    }
    return "info";
}

LogLevel logLevelFromString(const std::string& s) {
    if (s == "debug")
        return LogLevel::Debug;
    if (s == "warning")
        return LogLevel::Warning;
    if (s == "error")
        return LogLevel::Error;
    return LogLevel::Info;
}

} // namespace tb

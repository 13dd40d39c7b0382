// Text forms of LogLevel, as stored in the run database.
#include "store/runrecord.h"

namespace tb {

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

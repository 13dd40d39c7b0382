// Text forms of RunStatus and FailureKind, as the run store keeps them and the CLI and the
// window show them.
#include "core/errors.h"
#include "events/events.h"

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

std::string toString(FailureKind kind) {
    switch (kind) {
    case FailureKind::None:
        return "none";
    case FailureKind::Config:
        return "config";
    case FailureKind::Dataset:
        return "dataset";
    case FailureKind::OutOfMemory:
        return "out_of_memory";
    case FailureKind::NonFiniteLoss:
        return "non_finite_loss";
    case FailureKind::Backend:
        return "backend";
    case FailureKind::Distributed:
        return "distributed";
    case FailureKind::Internal:
        return "internal";
    }
    return "internal";
}

} // namespace tb

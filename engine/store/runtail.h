// RunTail: follows one run as another process (the CLI, a second window) or thread writes it,
// reading only the rows after the last ones it has, and nothing at all while the file has not
// changed (PRAGMA data_version). `trainbench-cli runs watch` and the window's live follow share
// it.
#pragma once

#include "store/runrecord.h"
#include "store/runstore.h"

#include <optional>
#include <string>
#include <vector>

namespace tb {

// What landed since the previous poll.
struct RunTailUpdate {
    std::vector<StepEvent> steps;
    std::vector<EpochEvent> epochs;
    std::vector<SystemSample> samples;
    std::vector<RunLogEntry> logs;   // log lines and advice
    std::optional<RunRecord> record; // the run's row, when anything changed
    bool deleted = false;            // the run is gone from the store
    bool empty() const {
        return steps.empty() && epochs.empty() && samples.empty() && logs.empty() && !record &&
               !deleted;
    }
};

class RunTail {
public:
    // Follows runId in store (which must outlive the tail); the first poll reads everything.
    RunTail(RunStore& store, std::string runId);

    // New rows since the last poll; nothing is read when the file did not change. Throws
    // StoreError when the store cannot be read.
    RunTailUpdate poll();
    // The run is over (not running) or deleted: nothing more will come.
    bool finished() const { return m_finished; }
    const std::string& runId() const { return m_runId; }

private:
    RunStore& m_store;
    std::string m_runId;
    std::optional<int64_t> m_version;
    int64_t m_lastStep = 0;
    int64_t m_lastEpoch = 0;
    double m_lastSampleTime = -1e300;
    int64_t m_lastLogId = 0;
    bool m_finished = false;
};

} // namespace tb

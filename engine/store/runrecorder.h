// RunRecorder: the EventSink that logs runs to the RunStore. The trainer's thread only queues
// events; a writer thread commits them in one transaction every commit interval.
#pragma once

#include "store/runstore.h"
#include "train/events.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tb {

struct RunRecorderOptions {
    std::chrono::milliseconds commitInterval{250};
    RunStoreOptions store;
};

// Records the runs whose events it receives (one after another; a RunStarted opens a run, a
// RunFinished closes it). SystemSampleEvents outside a run are dropped.
//
// Thread-safety: onEvent(), flush(), failed(), lastError() and runId() may be called from any
// thread. onEvent() never touches the disk: it copies the event into a queue under a mutex.
//
// Errors: the constructor opens the database and throws StoreError (so the caller can offer
// --no-db). A later write error does not throw into the trainer: the recorder rolls back the
// batch, stops writing (dropping further events), and reports it through failed()/lastError().
class RunRecorder : public EventSink {
public:
    // Opens (creating if needed) the database at path and starts the writer thread.
    explicit RunRecorder(const std::string& path, const RunRecorderOptions& options = {});
    // Commits everything queued, then stops the writer thread.
    ~RunRecorder() override;
    RunRecorder(const RunRecorder&) = delete;
    RunRecorder& operator=(const RunRecorder&) = delete;

    // Queues the event. A RunStartedEvent with an empty runId gets makeRunId(); a
    // RunFinishedEvent makes the writer commit at once.
    void onEvent(const Event& event) override;

    // Blocks until every event queued before the call is committed (or the recorder failed).
    // Returns !failed().
    bool flush();

    bool failed() const { return m_failed.load(std::memory_order_acquire); }
    // The StoreError message that stopped the recorder; empty while it works.
    std::string lastError() const;
    // The id of the run most recently started through this recorder (empty before).
    std::string runId() const;
    // Events committed so far (for tests and the lead's measurements).
    uint64_t committedEvents() const;
    const std::string& path() const { return m_path; }

private:
    void writerLoop(std::stop_token stop);
    void writeBatch(std::vector<Event>& batch);

    const std::string m_path;
    const std::chrono::milliseconds m_interval;
    std::unique_ptr<RunStore> m_store; // used by the writer thread only

    mutable std::mutex m_mutex;
    std::condition_variable_any m_wake;      // writer waits: a commit is wanted now
    std::condition_variable_any m_committed; // flush() waits: a batch was written
    std::vector<Event> m_queue;
    uint64_t m_enqueued = 0;
    uint64_t m_done = 0;   // events written (or dropped after failure)
    uint64_t m_urgent = 0; // pending requests to commit without waiting for the interval
    std::string m_runId;
    std::string m_error;
    std::atomic<bool> m_failed{false};

    std::string m_currentRun; // writer thread only
    std::jthread m_writer;    // last: started after everything above exists
};

} // namespace tb

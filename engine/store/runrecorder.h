// RunRecorder: the EventSink that logs runs to the RunStore. The trainer's thread only queues
// events; a writer thread commits them in one transaction every commit interval.
#pragma once

#include "events/events.h"
#include "store/runstore.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace tb {

struct RunRecorderOptions {
    std::chrono::milliseconds commitInterval{250};
    RunStoreOptions store;
    // A locked or full database is retried (each try also waits store.busyTimeout), the pause
    // between tries doubling up to this.
    std::chrono::milliseconds maxRetryDelay{2000};
    // How long close() keeps retrying what is still queued before it gives up.
    std::chrono::milliseconds closePatience{60000};
    // Events held while the database cannot be written; past this, further steps, samples and
    // logs are dropped (and counted in lostEvents()). A run's start and end are always kept.
    std::size_t maxQueuedEvents = 200000;
};

// Records the runs whose events it receives (one after another; a RunStarted opens a run, a
// RunFinished closes it). SystemSampleEvents outside a run are dropped.
//
// What is recorded stays recorded: a new run never overwrites a recorded one (its id must be
// new), and a resume (RunStartedEvent::resumed) changes the recorded run only from its first
// step on: a resume that fails or stops before then leaves the record as it was, plus a log line
// saying why it failed.
//
// Thread-safety: onEvent(), flush(), failed(), waiting(), lastError(), lostEvents() and runId()
// may be called from any thread. onEvent() never touches the disk: it copies the event into a
// queue under a mutex.
//
// Errors: the constructor opens the database and throws StoreError (so the caller can offer
// --no-db). A later write error never throws into the trainer. A locked or full database is
// retried with backoff while the queue keeps the events; any other error rolls the batch back
// and stops recording. Either way failed(), lastError() and lostEvents() tell, and close()
// returns false when anything could not be recorded.
class RunRecorder : public EventSink {
public:
    // Opens (creating if needed) the database at path and starts the writer thread.
    explicit RunRecorder(const std::string& path, const RunRecorderOptions& options = {});
    // close().
    ~RunRecorder() override;
    RunRecorder(const RunRecorder&) = delete;
    RunRecorder& operator=(const RunRecorder&) = delete;

    // Queues the event. A RunStartedEvent with an empty runId gets makeRunId(); a
    // RunFinishedEvent makes the writer commit at once.
    void onEvent(const Event& event) override;

    // Blocks until every event queued before the call is committed, the recorder failed, or
    // timeout passed (events still queued stay queued). True when all of them are committed and
    // none was ever lost.
    bool flush(std::chrono::milliseconds timeout);
    bool flush() { return flush(m_closePatience); }

    // Commits everything queued, retrying a locked or full database for up to closePatience,
    // then stops the writer thread. What could not be written by then is lost; on a full disk
    // the run's end (status and summary, and how many events were lost) is still attempted.
    // True when every event the recorder received is recorded. Idempotent.
    bool close();
    // Ends the retrying of a locked or full database now, from any thread: a close() waiting on
    // it returns at once and what is still queued is lost (and counted). For a user who would
    // rather stop waiting (Ctrl-C, SIGTERM, closing the window) than keep the rest of the run.
    void giveUp();

    // Stopped recording for good (an error other than a lock or full disk, or close() gave up).
    bool failed() const { return m_failed.load(std::memory_order_acquire); }
    // Retrying a locked or full database right now.
    bool waiting() const { return m_waiting.load(std::memory_order_acquire); }
    // The StoreError message of the latest write error; empty while none happened.
    std::string lastError() const;
    // The same without its advice (StoreError::problem()), for a window that gives its own.
    std::string lastProblem() const;
    // Events that will never be recorded (dropped past maxQueuedEvents or after a failure).
    uint64_t lostEvents() const;
    // The id of the run most recently started through this recorder (empty before).
    std::string runId() const;
    // Events committed so far (for tests and the lead's measurements).
    uint64_t committedEvents() const;
    const std::string& path() const { return m_path; }

private:
    // Where the writer is in the stream of events; copied before a batch, restored when the
    // batch rolls back so a retry replays it from the same place.
    struct Cursor {
        std::string run;                       // the run events go to; empty between runs
        std::optional<RunStartedEvent> resume; // a resume not yet written: waits for a step
        std::vector<Event> held;               // that resume's logs and samples until then
        int64_t lastStep = -1;                 // progress not yet written to the runs row
        double lastStepTime = 0.0;
    };
    enum class Outcome { Committed, Retry, Failed };

    void writerLoop(std::stop_token stop);
    Outcome writeBatch(const std::vector<Event>& batch);
    void apply(const Event& event);
    void startResumed();
    void writeProgress();
    // Gives up on batch: counts it lost and, if it ends a run, records at least that end.
    void abandon(const std::vector<Event>& batch);

    const std::string m_path;
    const std::chrono::milliseconds m_interval;
    const std::chrono::milliseconds m_maxRetryDelay;
    const std::chrono::milliseconds m_closePatience;
    const std::size_t m_maxQueued;
    std::unique_ptr<RunStore> m_store; // used by the writer thread only

    mutable std::mutex m_mutex;
    std::condition_variable_any m_wake;      // writer waits: a commit is wanted now
    std::condition_variable_any m_committed; // flush() waits: a batch was written
    std::vector<Event> m_queue;
    uint64_t m_enqueued = 0;
    uint64_t m_done = 0;   // events written (or given up on)
    uint64_t m_lost = 0;   // events that will never be written
    uint64_t m_urgent = 0; // pending requests to commit without waiting for the interval
    std::string m_runId;
    std::string m_error;
    std::string m_problem;
    std::atomic<bool> m_failed{false};
    std::atomic<bool> m_waiting{false};
    std::atomic<bool> m_givenUp{false};
    bool m_closed = false; // the writer has stopped: nothing would write a queued event

    Cursor m_cursor;       // writer thread only
    std::jthread m_writer; // last: started after everything above exists
};

} // namespace tb

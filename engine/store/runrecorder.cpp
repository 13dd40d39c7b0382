// The RunRecorder's queue and writer thread: batches, retries of a locked or full database,
// and resumes that touch the record only once they train.
#include "store/runrecorder.h"

#include "core/runid.h"
#include "store/storeerror.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <type_traits>
#include <vector>

namespace tb {

namespace {

constexpr std::chrono::milliseconds kFirstRetryDelay{100};

double unixNow() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Errors that go away by themselves (another writer finishes, space is freed): worth a retry.
bool transient(const StoreError& e) {
    return e.kind() == StoreError::Kind::Locked || e.kind() == StoreError::Kind::DiskFull;
}

// Room kept beside the database for a run's end: when the disk fills, deleting it is what lets
// the run's status, steps and error still be written (SQLite appends them to its log). Several
// pages' worth; a later recorder makes it again.
constexpr std::size_t kReserveBytes = 64 * 1024;

std::string reservePath(const std::string& database) {
    return database + "-reserve";
}

void keepReserve(const std::string& database) {
    std::error_code ec;
    if (std::filesystem::exists(reservePath(database), ec))
        return;
    std::ofstream out(reservePath(database), std::ios::binary);
    const std::vector<char> zeros(kReserveBytes, 0);
    out.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
    out.close();
    if (!out) // a full or read-only disk: then there is nothing to keep
        std::filesystem::remove(reservePath(database), ec);
}

} // namespace

RunRecorder::RunRecorder(const std::string& path, const RunRecorderOptions& options)
    : m_path(path), m_interval(options.commitInterval), m_maxRetryDelay(options.maxRetryDelay),
      m_closePatience(options.closePatience), m_maxQueued(options.maxQueuedEvents),
      m_store(std::make_unique<RunStore>(path, options.store)),
      m_writer([this](std::stop_token stop) { writerLoop(stop); }) {
    keepReserve(path);
}

RunRecorder::~RunRecorder() {
    close();
}

void RunRecorder::onEvent(const Event& event) {
    const bool started = std::holds_alternative<RunStartedEvent>(event);
    const bool urgent = std::holds_alternative<RunFinishedEvent>(event);
    {
        std::lock_guard lock(m_mutex);
        // Nothing will write it, or the backlog would grow without bound.
        const bool full = m_enqueued - m_done >= m_maxQueued && !started && !urgent;
        if (failed() || m_closed || full) {
            ++m_lost;
            return;
        }
        if (started) {
            auto copy = std::get<RunStartedEvent>(event);
            if (copy.runId.empty())
                copy.runId = makeRunId();
            m_runId = copy.runId;
            m_queue.emplace_back(std::move(copy));
        } else {
            m_queue.push_back(event);
        }
        ++m_enqueued;
        if (urgent)
            ++m_urgent;
    }
    if (urgent)
        m_wake.notify_one();
}

bool RunRecorder::flush(std::chrono::milliseconds timeout) {
    std::unique_lock lock(m_mutex);
    const uint64_t target = m_enqueued;
    ++m_urgent;
    m_wake.notify_one();
    m_committed.wait_for(lock, timeout, [&] { return m_done >= target || failed(); });
    return m_done >= target && !failed() && m_lost == 0;
}

bool RunRecorder::close() {
    if (m_writer.joinable()) {
        m_writer.request_stop(); // the writer drains the queue before it returns
        m_writer.join();
    }
    std::lock_guard lock(m_mutex);
    return !failed() && m_lost == 0;
}

void RunRecorder::giveUp() {
    // The writer may be inside a write that waits for another process's lock: end that too.
    // (m_store is set once, before the writer starts; stopping its waits is thread-safe.)
    m_store->stopWaitingForLocks();
    std::lock_guard lock(m_mutex);
    m_givenUp.store(true, std::memory_order_release);
    m_wake.notify_all();
}

std::string RunRecorder::lastError() const {
    std::lock_guard lock(m_mutex);
    return m_error;
}

std::string RunRecorder::lastProblem() const {
    std::lock_guard lock(m_mutex);
    return m_problem;
}

uint64_t RunRecorder::lostEvents() const {
    std::lock_guard lock(m_mutex);
    return m_lost;
}

std::string RunRecorder::runId() const {
    std::lock_guard lock(m_mutex);
    return m_runId;
}

uint64_t RunRecorder::committedEvents() const {
    std::lock_guard lock(m_mutex);
    return m_done;
}

void RunRecorder::writerLoop(std::stop_token stop) {
    using Clock = std::chrono::steady_clock;
    std::vector<Event> batch; // taken from the queue, not yet committed
    std::chrono::milliseconds delay = kFirstRetryDelay;
    std::optional<Clock::time_point> giveUpAt;
    for (;;) {
        uint64_t target = 0;
        const bool retrying = !batch.empty();
        {
            std::unique_lock lock(m_mutex);
            if (batch.empty()) {
                // Returns at the interval, on an urgent request, or at once when stopping.
                m_wake.wait_for(lock, stop, m_interval, [&] { return m_urgent > 0; });
            } else {
                // Before a retry, even while stopping: the lock must get time to go away.
                m_wake.wait_for(lock, delay, [&] { return m_givenUp.load(); });
            }
            std::move(m_queue.begin(), m_queue.end(), std::back_inserter(batch));
            m_queue.clear();
            target = m_enqueued;
            m_urgent = 0;
        }
        // A run's start is committed on its own (with what came before it): when its first
        // metrics do not fit (a disk filling up under a fast run), the run is still listed and
        // its end can join it.
        const auto start = std::find_if(batch.begin(), batch.end(), [](const Event& e) {
            return std::holds_alternative<RunStartedEvent>(e);
        });
        Outcome outcome = Outcome::Committed;
        if (retrying && m_givenUp.load()) {
            // Given up while waiting to retry: no more tries, each of which could wait the
            // store's busy timeout again.
            abandon(batch);
            outcome = Outcome::Failed;
        } else {
            if (start != batch.end() && start + 1 != batch.end() && !failed() &&
                writeBatch(std::vector<Event>(batch.begin(), start + 1)) == Outcome::Committed)
                batch.erase(batch.begin(), start + 1);
            if (!batch.empty() && !failed())
                outcome = writeBatch(batch);
        }
        if (outcome == Outcome::Retry) {
            delay = std::min(delay * 2, m_maxRetryDelay);
            if (stop.stop_requested()) {
                if (!giveUpAt)
                    giveUpAt = Clock::now() + m_closePatience;
                if (Clock::now() >= *giveUpAt || m_givenUp.load()) {
                    abandon(batch);
                    outcome = Outcome::Failed;
                }
            }
        } else {
            delay = kFirstRetryDelay;
        }
        if (outcome != Outcome::Retry) {
            batch.clear();
            {
                std::lock_guard lock(m_mutex);
                m_done = target;
            }
            m_committed.notify_all();
        }
        if (stop.stop_requested() && batch.empty()) {
            std::lock_guard lock(m_mutex);
            if (m_queue.empty()) {
                m_closed = true; // under the lock that onEvent() queues under: nothing slips in
                return;
            }
        }
    }
}

RunRecorder::Outcome RunRecorder::writeBatch(const std::vector<Event>& batch) {
    const Cursor before = m_cursor;
    try {
        m_store->beginTransaction();
        for (const Event& event : batch)
            apply(event);
        writeProgress();
        m_store->commit();
        m_waiting.store(false, std::memory_order_release);
        return Outcome::Committed;
    } catch (const std::exception& e) {
        m_store->rollback();
        m_cursor = before; // the retry replays the batch from the same place
        const auto* storeError = dynamic_cast<const StoreError*>(&e);
        std::lock_guard lock(m_mutex);
        m_error = e.what();
        m_problem = storeError ? storeError->problem() : m_error;
        if (storeError && transient(*storeError)) {
            m_waiting.store(true, std::memory_order_release);
            return Outcome::Retry;
        }
        m_lost += batch.size() + m_queue.size();
        m_queue.clear(); // nothing more will be written
        m_waiting.store(false, std::memory_order_release);
        m_failed.store(true, std::memory_order_release);
    }
    m_committed.notify_all();
    return Outcome::Failed;
}

void RunRecorder::apply(const Event& event) {
    std::visit(
        [&](const auto& e) {
            using T = std::decay_t<decltype(e)>;
            if constexpr (std::is_same_v<T, RunStartedEvent>) {
                writeProgress();
                m_cursor = Cursor{};
                m_cursor.run = e.runId;
                if (e.resumed && m_store->contains(e.runId))
                    m_cursor.resume = e; // touched once a step shows that the resume trains
                else
                    m_store->beginRun(e, unixNow());
            } else if (m_cursor.run.empty()) {
                return; // no run open: samples between runs are not recorded
            } else if constexpr (std::is_same_v<T, StepEvent>) {
                startResumed();
                m_store->addStep(m_cursor.run, e);
                m_cursor.lastStep = e.step;
                m_cursor.lastStepTime = e.unixTime;
            } else if constexpr (std::is_same_v<T, EpochEvent>) {
                startResumed();
                m_store->addEpoch(m_cursor.run, e);
            } else if constexpr (std::is_same_v<T, RunFinishedEvent>) {
                writeProgress();
                if (!m_cursor.resume)
                    m_store->finishRun(m_cursor.run, e, unixNow());
                else if (e.status == RunStatus::Failed)
                    m_store->addLog(m_cursor.run,
                                    LogEvent{LogLevel::Error,
                                             "a resume of this run failed before its first step "
                                             "and changed nothing else here: " +
                                                 e.error,
                                             unixNow()});
                m_cursor = Cursor{};
            } else if (m_cursor.resume) {
                m_cursor.held.push_back(event);
            } else if constexpr (std::is_same_v<T, SystemSampleEvent>) {
                m_store->addSystemSample(m_cursor.run, e.sample);
            } else if constexpr (std::is_same_v<T, LogEvent>) {
                m_store->addLog(m_cursor.run, e);
            } else if constexpr (std::is_same_v<T, AdviceEvent>) {
                m_store->addAdvice(m_cursor.run, e);
            } else if constexpr (std::is_same_v<T, ProfileEvent>) {
                m_store->addProfile(m_cursor.run, e.report);
            }
        },
        event);
}

void RunRecorder::startResumed() {
    if (!m_cursor.resume)
        return;
    m_store->beginRun(*m_cursor.resume, unixNow());
    const std::vector<Event> held = std::move(m_cursor.held);
    m_cursor.resume.reset();
    m_cursor.held.clear();
    for (const Event& event : held)
        apply(event);
}

void RunRecorder::writeProgress() {
    if (m_cursor.lastStep >= 0 && !m_cursor.run.empty())
        m_store->updateProgress(m_cursor.run, m_cursor.lastStep, m_cursor.lastStepTime);
    m_cursor.lastStep = -1;
}

void RunRecorder::abandon(const std::vector<Event>& batch) {
    const auto isEnd = [](const Event& e) {
        return std::holds_alternative<RunStartedEvent>(e) ||
               std::holds_alternative<RunFinishedEvent>(e);
    };
    const auto ends = static_cast<uint64_t>(std::count_if(batch.begin(), batch.end(), isEnd));
    uint64_t lost = 0;
    std::string error;
    {
        std::lock_guard lock(m_mutex);
        m_lost += batch.size() + m_queue.size();
        m_queue.clear();
        lost = m_lost - ends;
        error = m_error;
        m_waiting.store(false, std::memory_order_release);
        m_failed.store(true, std::memory_order_release);
    }
    m_committed.notify_all();
    // The metrics do not fit, but a run's start and end are small: without its end a run that
    // trained to the last step would read as interrupted at the last step that fitted. The
    // reserve makes room for them.
    std::error_code removed;
    std::filesystem::remove(reservePath(m_path), removed);
    const Cursor before = m_cursor;
    try {
        m_store->beginTransaction();
        for (const Event& event : batch) {
            if (std::holds_alternative<RunStartedEvent>(event)) {
                apply(event);
            } else if (const auto* finished = std::get_if<RunFinishedEvent>(&event)) {
                RunFinishedEvent noted = *finished;
                if (m_cursor.resume && noted.summary.steps > m_cursor.resume->resumedFromStep)
                    startResumed(); // it did train: its end belongs in the record
                noted.error +=
                    (noted.error.empty() ? "" : " ") + std::to_string(lost) +
                    " events (steps, epochs, samples, logs) could not be recorded: " + error;
                apply(noted);
            }
        }
        m_store->commit();
        std::lock_guard lock(m_mutex);
        m_lost -= ends;
    } catch (const std::exception&) {
        m_store->rollback(); // lostEvents() and lastError() already tell
        m_cursor = before;
    }
}

} // namespace tb

// The RunRecorder's queue and writer thread.
#include "store/runrecorder.h"

#include "store/storeerror.h"

#include <chrono>
#include <type_traits>

namespace tb {

namespace {

double unixNow() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

RunRecorder::RunRecorder(const std::string& path, const RunRecorderOptions& options)
    : m_path(path), m_interval(options.commitInterval),
      m_store(std::make_unique<RunStore>(path, options.store)),
      m_writer([this](std::stop_token stop) { writerLoop(stop); }) {}

RunRecorder::~RunRecorder() {
    m_writer.request_stop(); // the writer drains the queue before it returns
    m_writer.join();
}

void RunRecorder::onEvent(const Event& event) {
    if (failed())
        return; // nothing will be written: do not let the queue grow
    const bool started = std::holds_alternative<RunStartedEvent>(event);
    const bool urgent = std::holds_alternative<RunFinishedEvent>(event);
    {
        std::lock_guard lock(m_mutex);
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

bool RunRecorder::flush() {
    std::unique_lock lock(m_mutex);
    const uint64_t target = m_enqueued;
    ++m_urgent;
    m_wake.notify_one();
    m_committed.wait(lock, [&] { return m_done >= target || failed(); });
    return !failed();
}

std::string RunRecorder::lastError() const {
    std::lock_guard lock(m_mutex);
    return m_error;
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
    std::vector<Event> batch;
    for (;;) {
        uint64_t target = 0;
        {
            std::unique_lock lock(m_mutex);
            // Returns at the interval, on an urgent request, or at once when stopping.
            m_wake.wait_for(lock, stop, m_interval, [&] { return m_urgent > 0; });
            batch.swap(m_queue);
            target = m_enqueued;
            m_urgent = 0;
        }
        if (!batch.empty() && !failed())
            writeBatch(batch);
        batch.clear();
        {
            std::lock_guard lock(m_mutex);
            m_done = target;
        }
        m_committed.notify_all();
        if (stop.stop_requested()) {
            std::lock_guard lock(m_mutex);
            if (m_queue.empty())
                return;
        }
    }
}

void RunRecorder::writeBatch(std::vector<Event>& batch) {
    try {
        m_store->beginTransaction();
        int64_t lastStep = -1;
        double lastTime = 0.0;
        auto flushProgress = [&] {
            if (lastStep >= 0 && !m_currentRun.empty())
                m_store->updateProgress(m_currentRun, lastStep, lastTime);
            lastStep = -1;
        };
        for (const Event& event : batch) {
            std::visit(
                [&](const auto& e) {
                    using T = std::decay_t<decltype(e)>;
                    if constexpr (std::is_same_v<T, RunStartedEvent>) {
                        flushProgress();
                        m_currentRun = e.runId;
                        m_store->beginRun(e, unixNow());
                    } else if (m_currentRun.empty()) {
                        return; // no run open: samples between runs are not recorded
                    } else if constexpr (std::is_same_v<T, StepEvent>) {
                        m_store->addStep(m_currentRun, e);
                        lastStep = e.step;
                        lastTime = e.unixTime;
                    } else if constexpr (std::is_same_v<T, EpochEvent>) {
                        m_store->addEpoch(m_currentRun, e);
                    } else if constexpr (std::is_same_v<T, SystemSampleEvent>) {
                        m_store->addSystemSample(m_currentRun, e.sample);
                    } else if constexpr (std::is_same_v<T, LogEvent>) {
                        m_store->addLog(m_currentRun, e);
                    } else if constexpr (std::is_same_v<T, AdviceEvent>) {
                        m_store->addAdvice(m_currentRun, e);
                    } else if constexpr (std::is_same_v<T, RunFinishedEvent>) {
                        flushProgress();
                        m_store->finishRun(m_currentRun, e, unixNow());
                        m_currentRun.clear();
                    }
                },
                event);
        }
        flushProgress();
        m_store->commit();
    } catch (const std::exception& e) {
        m_store->rollback();
        {
            std::lock_guard lock(m_mutex);
            m_error = e.what();
            m_queue.clear(); // nothing more will be written
            m_failed.store(true, std::memory_order_release);
        }
        m_committed.notify_all();
    }
}

} // namespace tb

// TelemetrySampler: a thread that reads the host and the GPUs at a fixed rate (2 Hz by default)
// and hands each SystemSampleEvent to its sinks, with or without a run in progress.
#pragma once

#include "core/systemsample.h"
#include "events/events.h"
#include "telemetry/nvmlsampler.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace tb {

struct TelemetryOptions {
    std::chrono::milliseconds interval{500};
    bool gpus = true; // false: host only, NVML is not loaded
    std::string nvmlLibrary = "libnvidia-ml.so.1";
};

// Thread-safety: every method may be called from any thread. Sinks are called on the sampler's
// thread and must return quickly (RunRecorder and a UI bridge only queue the event).
class TelemetrySampler {
public:
    explicit TelemetrySampler(const TelemetryOptions& options = {});
    ~TelemetrySampler(); // stop()
    TelemetrySampler(const TelemetrySampler&) = delete;
    TelemetrySampler& operator=(const TelemetrySampler&) = delete;

    // Sinks are not owned. After removeSink() returns the sink is never called again (it waits
    // for a delivery in progress), so the sink may then be destroyed. Do not call these from
    // inside a sink's onEvent().
    void addSink(EventSink* sink);
    void removeSink(EventSink* sink);

    // Starts the thread (no-op when running); NVML is loaded on it, off the caller's thread.
    // The first sample is taken one interval after start.
    void start();
    // Stops and joins promptly: a waiting thread wakes at once; a sample in progress finishes.
    void stop();
    bool running() const;
    // Whether the thread is waiting for its next tick (NVML loaded, no sample in progress).
    bool waiting() const { return m_waiting.load(); }

    // Why there are no GPU readings ("NVML not available: libnvidia-ml.so.1 not found"), or the
    // last NVML failure; empty when GPUs are read fine (or not started yet).
    std::string gpuStatus() const;
    // The most recent sample, for panels that poll.
    std::optional<SystemSample> latest() const;

private:
    void run(std::stop_token stop);

    const TelemetryOptions m_options;
    mutable std::mutex m_mutex;       // guards m_latest, m_gpuStatus, m_thread
    std::mutex m_sinkMutex;           // held while delivering; guards m_sinks
    std::condition_variable_any m_cv; // wakes the thread early on stop
    std::vector<EventSink*> m_sinks;
    std::optional<SystemSample> m_latest;
    std::string m_gpuStatus;
    std::atomic<bool> m_waiting{false};
    std::jthread m_thread;
};

} // namespace tb

// The telemetry thread: sample on a fixed schedule, deliver, wait on the stop token.
#include "telemetry/telemetrysampler.h"

#include "telemetry/hostsampler.h"

#include <algorithm>
#include <memory>

namespace tb {

TelemetrySampler::TelemetrySampler(const TelemetryOptions& options) : m_options(options) {}

TelemetrySampler::~TelemetrySampler() {
    stop();
}

void TelemetrySampler::addSink(EventSink* sink) {
    std::lock_guard lock(m_sinkMutex);
    if (std::find(m_sinks.begin(), m_sinks.end(), sink) == m_sinks.end())
        m_sinks.push_back(sink);
}

void TelemetrySampler::removeSink(EventSink* sink) {
    std::lock_guard lock(m_sinkMutex);
    std::erase(m_sinks, sink);
}

void TelemetrySampler::start() {
    std::lock_guard lock(m_mutex);
    if (m_thread.joinable())
        return;
    m_thread = std::jthread([this](std::stop_token stop) { run(stop); });
}

void TelemetrySampler::stop() {
    std::jthread thread;
    {
        std::lock_guard lock(m_mutex);
        thread = std::move(m_thread);
    }
    if (thread.joinable()) {
        thread.request_stop(); // wakes the wait in run() through the stop token
        thread.join();
    }
}

bool TelemetrySampler::running() const {
    std::lock_guard lock(m_mutex);
    return m_thread.joinable();
}

std::string TelemetrySampler::gpuStatus() const {
    std::lock_guard lock(m_mutex);
    return m_gpuStatus;
}

std::optional<SystemSample> TelemetrySampler::latest() const {
    std::lock_guard lock(m_mutex);
    return m_latest;
}

void TelemetrySampler::run(std::stop_token stop) {
    HostSampler host;
    std::unique_ptr<NvmlSampler> nvml;
    if (m_options.gpus) {
        nvml = std::make_unique<NvmlSampler>(m_options.nvmlLibrary);
        std::lock_guard lock(m_mutex);
        m_gpuStatus = nvml->lastError();
    }
    using Clock = std::chrono::steady_clock;
    const auto interval = std::max(m_options.interval, std::chrono::milliseconds(1));
    auto next = Clock::now() + interval;
    std::mutex waitMutex; // the wait needs a lock; nothing else uses this one
    for (;;) {
        {
            std::unique_lock lock(waitMutex);
            m_waiting = true;
            // Returns true only when stop was requested (the predicate).
            const bool stopped =
                m_cv.wait_until(lock, stop, next, [] { return false; }) || stop.stop_requested();
            m_waiting = false;
            if (stopped)
                return;
        }
        // Fixed schedule without drift; after a long stall, skip the missed ticks.
        next += interval;
        if (const auto now = Clock::now(); next < now)
            next = now + interval;

        SystemSampleEvent event;
        event.sample.unixTime =
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        event.sample.host = host.sample();
        if (nvml && nvml->available()) {
            event.sample.gpus = nvml->sample();
            std::lock_guard lock(m_mutex);
            m_gpuStatus = nvml->lastError();
        }
        {
            std::lock_guard lock(m_mutex);
            m_latest = event.sample;
        }
        const Event wrapped = event;
        std::lock_guard lock(m_sinkMutex);
        for (EventSink* sink : m_sinks)
            sink->onEvent(wrapped);
    }
}

} // namespace tb

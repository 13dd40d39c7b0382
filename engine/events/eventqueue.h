// EventQueue: buffers events from any thread until a consumer drains them, as a UI does on its
// timer (PlotJuggler's staging buffer: the lock is held only to append or swap). Each event is
// tagged with its source where it enters, so one queue serves the live run, the runs of an
// experiment and the ranks of a data-parallel job alike.
#pragma once

#include "events/events.h"

#include <cstddef>
#include <mutex>
#include <vector>

namespace tb {

class EventQueue final : public EventSink {
public:
    // Queues an event of no run (telemetry while idle). Called from any thread.
    void onEvent(const Event& event) override;
    // Queues an event from `source`. Called from any thread.
    void push(const EventSource& source, const Event& event);

    // Everything queued since the last drain, oldest first; the queue is empty afterwards.
    std::vector<TaggedEvent> drain();

    // Events waiting now (for tests and back-pressure figures).
    std::size_t size() const;

private:
    mutable std::mutex m_mutex;
    std::vector<TaggedEvent> m_pending;
};

// An EventSink that queues every event it receives tagged with one source: what a run's
// trainer (or one rank) writes to.
class TaggingSink final : public EventSink {
public:
    TaggingSink(EventQueue& queue, EventSource source)
        : m_queue(queue), m_source(std::move(source)) {}
    void onEvent(const Event& event) override { m_queue.push(m_source, event); }
    const EventSource& source() const { return m_source; }

private:
    EventQueue& m_queue;
    EventSource m_source;
};

} // namespace tb

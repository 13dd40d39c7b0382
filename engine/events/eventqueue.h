// EventQueue: an EventSink that buffers events from any thread until a consumer drains them, as
// a UI does on its timer (PlotJuggler's staging buffer: the lock is held only to append or swap).
#pragma once

#include "train/events.h"

#include <cstddef>
#include <mutex>
#include <vector>

namespace tb {

class EventQueue final : public EventSink {
public:
    // Called from the trainer's, the sampler's or any other thread.
    void onEvent(const Event& event) override;

    // Everything queued since the last drain, oldest first; the queue is empty afterwards.
    std::vector<Event> drain();

    // Events waiting now (for tests and back-pressure figures).
    std::size_t size() const;

private:
    mutable std::mutex m_mutex;
    std::vector<Event> m_pending;
};

} // namespace tb

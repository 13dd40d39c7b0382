// EventQueue: append under the lock, swap the whole buffer out on drain.
#include "events/eventqueue.h"

namespace tb {

void EventQueue::onEvent(const Event& event) {
    push(EventSource{}, event);
}

void EventQueue::push(const EventSource& source, const Event& event) {
    std::lock_guard lock(m_mutex);
    m_pending.push_back({source, event});
}

std::vector<TaggedEvent> EventQueue::drain() {
    std::vector<TaggedEvent> out;
    {
        std::lock_guard lock(m_mutex);
        out.swap(m_pending);
    }
    return out;
}

std::size_t EventQueue::size() const {
    std::lock_guard lock(m_mutex);
    return m_pending.size();
}

} // namespace tb

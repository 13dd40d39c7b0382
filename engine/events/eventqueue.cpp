// EventQueue: append under the lock, swap the whole buffer out on drain.
#include "train/eventqueue.h"

namespace tb {

void EventQueue::onEvent(const Event& event) {
    std::lock_guard lock(m_mutex);
    m_pending.push_back(event);
}

std::vector<Event> EventQueue::drain() {
    std::vector<Event> out;
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

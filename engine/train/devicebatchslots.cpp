// DeviceBatchSlots: the slot ring and its events.
#include "train/devicebatchslots.h"

#include "core/errors.h"

namespace tb {

DeviceBatchSlots::DeviceBatchSlots(Backend& backend, int slots)
    : m_backend(backend), m_slots(static_cast<std::size_t>(slots)) {
    if (slots < 1)
        throw Error("DeviceBatchSlots: needs at least one slot");
}

const Tensor& DeviceBatchSlots::place(const Tensor& host, Tensor& buffer, StreamEvent* free) {
    // The buffer's size, not the last view's: after a short last batch, a full one fits again.
    if (!buffer.defined() || buffer.buffer()->bytes() < host.bytes()) {
        buffer = Tensor(); // back to the allocator first, so the new block may reuse it
        buffer = m_backend.empty(host.shape(), host.dtype());
        free = nullptr;
    }
    buffer = Tensor(buffer.buffer(), host.shape(), host.dtype());
    m_backend.copyToDevice(host, buffer, free);
    return buffer;
}

std::pair<const Tensor&, const Tensor&> DeviceBatchSlots::stage(const Tensor& inputs,
                                                                const Tensor& labels) {
    if (m_backend.device() == inputs.device() && m_backend.device() == labels.device())
        return {inputs, labels};
    Slot& slot = m_slots[m_next];
    const Tensor& x = place(inputs, slot.inputs, slot.free.get());
    const Tensor& y = place(labels, slot.labels, slot.free.get());
    slot.free.reset(); // refilled: free again only after this batch is consumed
    m_staged = m_next;
    m_next = (m_next + 1) % m_slots.size();
    return {x, y};
}

void DeviceBatchSlots::consumed() {
    if (m_staged == SIZE_MAX)
        return;
    m_slots[m_staged].free = m_backend.recordEvent();
    m_staged = SIZE_MAX;
}

} // namespace tb

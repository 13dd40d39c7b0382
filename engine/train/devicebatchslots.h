// Input batches on the device in slots used in turn (double buffering): batch N+1 is copied from
// pinned host memory into one slot while batch N's forward and backward read the other. A slot
// is written again once the compute that read it is done, told by the event recorded when that
// compute was issued, so a copy waits for one batch's compute, not for everything issued.
#pragma once

#include "backend/backend.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace tb {

class DeviceBatchSlots {
public:
    explicit DeviceBatchSlots(Backend& backend, int slots = 2);

    // Copies a batch into the next slot and returns the device tensors (views of the slot's
    // buffers, shaped as the batch; the host tensors themselves when the backend computes in
    // host memory). A slot that must grow gets new memory, whose copy waits for all compute
    // issued so far (the allocator hands out memory in compute-stream order).
    std::pair<const Tensor&, const Tensor&> stage(const Tensor& inputs, const Tensor& labels);
    // Says every op that reads the batch last staged has been issued (call after its
    // backward): the slot may be refilled once the compute stream gets past this point.
    void consumed();

private:
    struct Slot {
        Tensor inputs, labels;
        std::unique_ptr<StreamEvent> free; // null: never consumed, wait for all compute
    };
    const Tensor& place(const Tensor& host, Tensor& buffer, StreamEvent* free);

    Backend& m_backend;
    std::vector<Slot> m_slots;
    std::size_t m_next = 0;          // the slot the next batch goes to
    std::size_t m_staged = SIZE_MAX; // the slot of the batch last staged, until consumed
};

} // namespace tb

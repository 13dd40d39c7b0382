// BatchPool: shared-ownership views of pooled buffers whose deleter gives the buffer back.
#include "data/batchpool.h"

#include "backend/backend.h"

#include <algorithm>

namespace tb {

BatchPool::BatchPool(Backend& backend, bool pinned, int64_t batchSize, const Shape& sampleShape,
                     const Shape& targetShape, DType targetType)
    : m_backend(backend), m_pinned(pinned), m_batchSize(batchSize), m_sampleShape(sampleShape),
      m_targetShape(targetShape), m_targetType(targetType) {
    static_assert(sizeof(int32_t) == sizeof(float), "targets take a float's room each");
    const auto inputFloats = static_cast<std::size_t>(batchSize * sampleShape.numel());
    const std::size_t padded = (inputFloats + 15) / 16 * 16; // labels start 64-byte aligned
    m_labelsOffset = padded * sizeof(float);
    m_floats =
        padded + static_cast<std::size_t>(batchSize * std::max<int64_t>(1, targetShape.numel()));
}

Tensor BatchPool::allocate() {
    // Workers allocate only when the consumer holds many batches. The pool's lock does not
    // cover the training thread's calls on the same backend, so this relies on emptyHost being
    // thread-safe (Backend's contract; the CUDA pinned pool has its own mutex).
    Tensor t = m_backend.emptyHost(Shape{static_cast<int64_t>(m_floats)}, DType::F32, m_pinned);
    ++m_allocated;
    return t;
}

void BatchPool::reserve(int64_t count) {
    std::lock_guard lock(m_mutex);
    while (m_allocated < count)
        m_free.push_back(allocate());
}

BatchPool::Lease BatchPool::acquire(int64_t n) {
    Tensor owner;
    {
        std::lock_guard lock(m_mutex);
        if (m_free.empty()) {
            owner = allocate();
        } else {
            owner = std::move(m_free.back());
            m_free.pop_back();
        }
    }
    // An aliasing handle: same Buffer object, but dropping the last copy gives `owner` back to
    // the pool (or frees it, when the loader and its pool are gone).
    Buffer* raw = owner.buffer().get();
    const auto base =
        static_cast<std::size_t>(static_cast<char*>(owner.raw()) - static_cast<char*>(raw->data()));
    std::weak_ptr<BatchPool> pool = weak_from_this();
    std::shared_ptr<Buffer> handle(raw, [pool, owner](Buffer*) mutable {
        if (auto p = pool.lock())
            p->giveBack(std::move(owner));
        owner = Tensor();
    });
    Lease lease;
    lease.inputs = Tensor(handle, m_sampleShape.withBatch(n), DType::F32, base);
    lease.labels = Tensor(handle, m_targetShape.rank() == 0 ? Shape{n} : m_targetShape.withBatch(n),
                          m_targetType, base + m_labelsOffset);
    return lease;
}

void BatchPool::giveBack(Tensor buffer) {
    std::lock_guard lock(m_mutex);
    m_free.push_back(std::move(buffer));
}

int64_t BatchPool::allocated() const {
    std::lock_guard lock(m_mutex);
    return m_allocated;
}

int64_t BatchPool::available() const {
    std::lock_guard lock(m_mutex);
    return static_cast<int64_t>(m_free.size());
}

} // namespace tb

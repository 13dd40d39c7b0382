// Recycled host buffers for DataLoader batches: allocated through Backend::emptyHost (pinned when
// asked), handed out with shared ownership and returned to the pool when the last Batch using one
// is dropped, so the steady state allocates nothing.
#pragma once

#include "core/shape.h"
#include "core/tensor.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace tb {

class Backend;

class BatchPool : public std::enable_shared_from_this<BatchPool> {
public:
    // Each buffer holds batchSize samples of sampleShape (f32) followed by their targets, each
    // sample's of targetShape (empty: one label) and targetType (I32 labels, F32 boxes).
    BatchPool(Backend& backend, bool pinned, int64_t batchSize, const Shape& sampleShape,
              const Shape& targetShape = {}, DType targetType = DType::I32);

    struct Lease {
        Tensor inputs; // f32 (n, sample shape...)
        Tensor labels; // (n) or (n, target shape...)
    };
    // A buffer for n <= batchSize samples, from the free list or newly allocated. Thread-safe.
    Lease acquire(int64_t n);
    // Allocates buffers until `count` exist (on the caller's thread, before workers start).
    void reserve(int64_t count);

    int64_t allocated() const;
    int64_t available() const;

private:
    Tensor allocate();
    void giveBack(Tensor buffer);

    Backend& m_backend;
    bool m_pinned;
    int64_t m_batchSize;
    Shape m_sampleShape;
    Shape m_targetShape;
    DType m_targetType;
    std::size_t m_labelsOffset; // bytes from the start of a buffer to its labels, 64-aligned
    std::size_t m_floats;       // f32 elements per buffer (inputs, padding and labels)
    mutable std::mutex m_mutex;
    std::vector<Tensor> m_free; // whole buffers as the backend returned them
    int64_t m_allocated = 0;
};

} // namespace tb

// Tensor views and host allocation.
#include "core/tensor.h"

#include "core/errors.h"
#include "core/hostmemory.h"

#include <cstdlib>

namespace tb {

Tensor::Tensor(std::shared_ptr<Buffer> buffer, Shape shape, DType dtype, std::size_t byteOffset)
    : m_buffer(std::move(buffer)), m_shape(shape), m_dtype(dtype), m_offset(byteOffset) {
    if (m_buffer && m_offset + bytes() > m_buffer->bytes())
        throw Error("tensor of shape " + shape.toString() + " does not fit its buffer");
}

Tensor Tensor::host(const Shape& shape, DType dtype) {
    const std::size_t bytes = static_cast<std::size_t>(shape.numel()) * dtypeSize(dtype);
    const std::size_t rounded = (bytes + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
    if (!p) {
        const auto memory = hostMemory();
        throw OutOfMemoryError(
            "the host", bytes, memory ? memory->available : 0, memory ? memory->total : 0,
            "Close other programs, or make the run smaller (batch_size, the model or "
            "the dataset).");
    }
    auto buffer = std::make_shared<Buffer>(p, bytes, Device::cpu(), false,
                                           [](void* q, std::size_t) { std::free(q); });
    return Tensor(std::move(buffer), shape, dtype);
}

Tensor Tensor::view(const Shape& shape) const {
    if (shape.numel() != numel())
        throw Error("cannot view " + m_shape.toString() + " as " + shape.toString());
    return Tensor(m_buffer, shape, m_dtype, m_offset);
}

Tensor Tensor::slice(int64_t begin, int64_t end) const {
    if (begin < 0 || end > m_shape[0] || begin > end)
        throw Error("slice out of range");
    Shape s = m_shape;
    s[0] = end - begin;
    const std::size_t rowBytes =
        static_cast<std::size_t>(numel() / std::max<int64_t>(m_shape[0], 1)) * dtypeSize(m_dtype);
    return Tensor(m_buffer, s, m_dtype, m_offset + static_cast<std::size_t>(begin) * rowBytes);
}

} // namespace tb

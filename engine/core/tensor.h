// Tensor: a typed, shaped view of a buffer that one backend allocated on one device.
#pragma once

#include "core/device.h"
#include "core/dtype.h"
#include "core/shape.h"

#include <cstddef>
#include <functional>
#include <memory>

namespace tb {

// A block of memory and the function that gives it back. Owned through shared_ptr by tensors.
class Buffer {
public:
    using Release = std::function<void(void*, std::size_t)>;
    Buffer(void* data, std::size_t bytes, Device device, bool pinned, Release release)
        : m_data(data), m_bytes(bytes), m_device(device), m_pinned(pinned),
          m_release(std::move(release)) {}
    ~Buffer() {
        if (m_release)
            m_release(m_data, m_bytes);
    }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    void* data() const { return m_data; }
    std::size_t bytes() const { return m_bytes; }
    Device device() const { return m_device; }
    // Page-locked host memory that a GPU can copy from asynchronously.
    bool pinned() const { return m_pinned; }

    // How the values are laid out. 0 is the plain row-major layout that all code outside a
    // backend reads. The backend that allocated the buffer may keep its own buffers in a
    // layout of its own (the CPU backend's channel-blocked activations, which oneDNN's
    // convolutions read and write without reorders) when it marks them with
    // allowBackendLayouts(); it hands out plain data through copy() and cast().
    int layout() const { return m_layout; }
    void setLayout(int layout) { m_layout = layout; }
    bool backendLayoutsAllowed() const { return m_backendLayouts; }
    void allowBackendLayouts(bool allowed = true) { m_backendLayouts = allowed; }

private:
    void* m_data;
    std::size_t m_bytes;
    Device m_device;
    bool m_pinned;
    Release m_release;
    int m_layout = 0;
    bool m_backendLayouts = false;
};

class Tensor {
public:
    Tensor() = default;
    Tensor(std::shared_ptr<Buffer> buffer, Shape shape, DType dtype, std::size_t byteOffset = 0);

    // Host tensor in 64-byte aligned memory; for tests, readers and CPU-side staging.
    static Tensor host(const Shape& shape, DType dtype);

    bool defined() const { return m_buffer != nullptr; }
    const Shape& shape() const { return m_shape; }
    DType dtype() const { return m_dtype; }
    Device device() const { return m_buffer ? m_buffer->device() : Device::cpu(); }
    bool pinned() const { return m_buffer && m_buffer->pinned(); }
    int64_t numel() const { return m_shape.numel(); }
    std::size_t bytes() const { return static_cast<std::size_t>(numel()) * dtypeSize(m_dtype); }
    int64_t dim(int i) const { return m_shape[i]; }

    void* raw() const { return static_cast<char*>(m_buffer->data()) + m_offset; }
    template <typename T> T* data() const { return static_cast<T*>(raw()); }

    // Same memory, new shape of the same element count.
    Tensor view(const Shape& shape) const;
    // Rows [begin, end) of the outermost dimension, sharing memory.
    Tensor slice(int64_t begin, int64_t end) const;
    const std::shared_ptr<Buffer>& buffer() const { return m_buffer; }

private:
    std::shared_ptr<Buffer> m_buffer;
    Shape m_shape;
    DType m_dtype = DType::F32;
    std::size_t m_offset = 0;
};

} // namespace tb

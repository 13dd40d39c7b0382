// Caching device allocator and pinned host pool.
#include "allocator.h"

#include "cudacheck.h"
#include "streams.h"

#include <algorithm>
#include <bit>

namespace tb::cuda {

namespace {

constexpr std::size_t kSmallStep = 512;
constexpr std::size_t kSmallLimit = std::size_t{1} << 20;
constexpr std::size_t kLargestRequest = std::size_t{1} << 56;
constexpr const char* kOomAdvice =
    "Halve batch_size and double accumulate_grad_batches to keep the effective batch; "
    "turn on precision=16-mixed to halve activation memory.";

} // namespace

void* BlockLists::takeFree(std::size_t sizeClass) {
    auto it = m_free.find(sizeClass);
    if (it == m_free.end() || it->second.empty())
        return nullptr;
    void* ptr = it->second.back();
    it->second.pop_back();
    return ptr;
}

void BlockLists::markLive(void* ptr, std::size_t sizeClass) {
    m_live.emplace(ptr, sizeClass);
}

std::size_t BlockLists::release(void* ptr, bool* dropped) noexcept {
    auto it = m_live.find(ptr);
    if (it == m_live.end())
        return 0;
    const std::size_t size = it->second;
    m_live.erase(it);
    try {
        m_free[size].push_back(ptr);
    } catch (...) { // out of host memory for the list
        *dropped = true;
    }
    return size;
}

std::size_t DeviceAllocator::sizeClass(std::size_t bytes) {
    if (bytes <= kSmallLimit)
        return std::max(kSmallStep, (bytes + kSmallStep - 1) / kSmallStep * kSmallStep);
    // Four classes per octave: 1, 1.25, 1.5, 1.75 times the power of two below.
    const std::size_t octave = std::bit_floor(bytes);
    const std::size_t step = octave / 4;
    return (bytes + step - 1) / step * step;
}

DeviceAllocator::DeviceAllocator(int device, std::string deviceLabel)
    : m_device(device), m_label(std::move(deviceLabel)) {}

DeviceAllocator::~DeviceAllocator() {
    // Blocks still live belong to tensors that outlive us; each tensor keeps the allocator alive
    // through its release function, so only cached blocks remain here.
    try {
        std::lock_guard lock(m_mutex);
        releaseCachedLocked();
    } catch (...) { // the runtime may already be unloading at exit
    }
}

void* DeviceAllocator::allocate(std::size_t bytes, std::size_t* granted) {
    if (bytes > kLargestRequest) // no device has that much; also keeps sizeClass from overflowing
        throw outOfMemory(bytes);
    const std::size_t size = sizeClass(bytes);
    std::lock_guard lock(m_mutex);
    void* ptr = m_blocks.takeFree(size);
    if (!ptr) {
        DeviceScope scope(m_device);
        cudaError_t status = cudaMalloc(&ptr, size);
        if (status == cudaErrorMemoryAllocation) {
            // First failure: give the cache back to the driver and try once more.
            (void)cudaGetLastError();
            releaseCachedLocked();
            status = cudaMalloc(&ptr, size);
        }
        if (status == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            throw outOfMemory(bytes);
        }
        TB_CUDA_CHECK(status);
        m_reserved += size;
    }
    m_blocks.markLive(ptr, size);
    m_inUse += size;
    m_peak = std::max(m_peak, m_inUse);
    if (granted)
        *granted = size;
    return ptr;
}

void DeviceAllocator::release(void* ptr) noexcept {
    std::lock_guard lock(m_mutex);
    bool dropped = false;
    const std::size_t size = m_blocks.release(ptr, &dropped);
    m_inUse -= size;
    if (dropped) { // hand the block straight back
        (void)cudaFree(ptr);
        m_reserved -= size;
    }
}

void DeviceAllocator::releaseCached() {
    std::lock_guard lock(m_mutex);
    releaseCachedLocked();
}

void DeviceAllocator::releaseCachedLocked() {
    DeviceScope scope(m_device);
    // Kernels queued before a block was freed may still use it.
    TB_CUDA_CHECK(cudaDeviceSynchronize());
    m_blocks.drain([this](void* ptr, std::size_t size) {
        (void)cudaFree(ptr);
        m_reserved -= size;
    });
}

MemoryStats DeviceAllocator::stats() const {
    MemoryStats s;
    {
        std::lock_guard lock(m_mutex);
        s.inUse = m_inUse;
        s.reserved = m_reserved;
        s.peakInUse = m_peak;
    }
    DeviceScope scope(m_device);
    std::size_t freeBytes = 0, totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess) {
        s.deviceFree = freeBytes;
        s.deviceTotal = totalBytes;
    } else {
        (void)cudaGetLastError();
    }
    return s;
}

void DeviceAllocator::resetPeak() {
    std::lock_guard lock(m_mutex);
    m_peak = m_inUse;
}

OutOfMemoryError DeviceAllocator::outOfMemory(std::size_t requested) const {
    std::size_t freeBytes = 0, totalBytes = 0;
    try {
        DeviceScope scope(m_device); // this device's figures, whichever one the thread has current
        if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess)
            (void)cudaGetLastError();
    } catch (const Error&) { // report the OOM without the figures rather than another error
    }
    return OutOfMemoryError(m_label, requested, freeBytes, totalBytes, kOomAdvice);
}

PinnedHostPool::PinnedHostPool(int device) : m_device(device) {}

PinnedHostPool::~PinnedHostPool() {
    releaseCached();
}

void* PinnedHostPool::allocate(std::size_t bytes, std::size_t* granted) {
    const std::size_t size = DeviceAllocator::sizeClass(bytes);
    std::lock_guard lock(m_mutex);
    void* ptr = m_blocks.takeFree(size);
    if (!ptr) {
        DeviceScope scope(m_device);
        if (cudaHostAlloc(&ptr, size, cudaHostAllocPortable) != cudaSuccess) {
            (void)cudaGetLastError();
            return nullptr;
        }
    }
    m_blocks.markLive(ptr, size);
    if (granted)
        *granted = size;
    return ptr;
}

void PinnedHostPool::release(void* ptr) noexcept {
    std::lock_guard lock(m_mutex);
    bool dropped = false;
    m_blocks.release(ptr, &dropped);
    if (dropped) // hand the block straight back
        (void)cudaFreeHost(ptr);
}

void PinnedHostPool::releaseCached() noexcept {
    std::lock_guard lock(m_mutex);
    m_blocks.drain([](void* ptr, std::size_t) { (void)cudaFreeHost(ptr); });
}

} // namespace tb::cuda

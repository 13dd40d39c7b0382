// Caching device allocator: size-class free lists so the steady state never calls cudaMalloc or
// cudaFree; cached blocks go back to the driver on releaseCached() or when an allocation fails.
#pragma once

#include "backend/backend.h"
#include "core/errors.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tb::cuda {

// Size-class free lists and the size class of every live block: the bookkeeping of both caches
// below. Not thread-safe: the owner holds its lock around every call.
class BlockLists {
public:
    // A cached block of this size class, or null.
    void* takeFree(std::size_t sizeClass);
    void markLive(void* ptr, std::size_t sizeClass);
    // Moves a live block to its free list and returns its size class (0 for an unknown block).
    // When the list cannot grow, *dropped is set and the caller frees the block itself.
    std::size_t release(void* ptr, bool* dropped) noexcept;
    // Hands every cached block to freeBlock(ptr, sizeClass) and forgets it.
    template <typename FreeBlock> void drain(FreeBlock freeBlock) {
        for (auto& [size, blocks] : m_free)
            for (void* ptr : blocks)
                freeBlock(ptr, size);
        m_free.clear();
    }

private:
    std::unordered_map<std::size_t, std::vector<void*>> m_free; // size class -> cached blocks
    std::unordered_map<void*, std::size_t> m_live;              // block -> size class
};

// Blocks are reused in stream order: every op runs on the one compute stream, so a block freed
// by the host while kernels still read it is only handed to kernels queued after them. Thread-safe
// (tensors may be released on any thread).
class DeviceAllocator {
public:
    // deviceLabel names the device in OutOfMemoryError ("cuda:0 (NVIDIA H200)").
    DeviceAllocator(int device, std::string deviceLabel);
    ~DeviceAllocator();
    DeviceAllocator(const DeviceAllocator&) = delete;
    DeviceAllocator& operator=(const DeviceAllocator&) = delete;

    // A block of at least `bytes` (its size class is written to *granted). On a cudaMalloc
    // failure the cache is released and the call retried once; then OutOfMemoryError is thrown.
    void* allocate(std::size_t bytes, std::size_t* granted);
    // Returns a block from allocate() to its free list. Never throws.
    void release(void* ptr) noexcept;
    // Waits for the device, then cudaFree()s every cached block not in use.
    void releaseCached();

    MemoryStats stats() const;
    void resetPeak();
    // The error allocate() would throw for `requested` bytes, with the device's free and total.
    OutOfMemoryError outOfMemory(std::size_t requested) const;

    // Rounds a request up to its size class: 512-byte steps below 1 MiB, then four classes per
    // power of two (at most 25% slack), so a few classes serve a whole training step.
    static std::size_t sizeClass(std::size_t bytes);

private:
    void releaseCachedLocked();

    int m_device;
    std::string m_label;
    mutable std::mutex m_mutex;
    BlockLists m_blocks;
    uint64_t m_inUse = 0;
    uint64_t m_reserved = 0;
    uint64_t m_peak = 0;
};

// Pool of page-locked host blocks (cudaHostAlloc) for staging batches. A block comes back only
// when its last tensor is gone, and CudaBackend::copy keeps a pinned source alive until the copy
// stream has read it, so a released block is free to be written again.
class PinnedHostPool {
public:
    explicit PinnedHostPool(int device);
    ~PinnedHostPool();
    PinnedHostPool(const PinnedHostPool&) = delete;
    PinnedHostPool& operator=(const PinnedHostPool&) = delete;

    // A pinned block of at least `bytes`, or null when the system cannot pin more memory (the
    // caller then falls back to pageable memory).
    void* allocate(std::size_t bytes, std::size_t* granted);
    void release(void* ptr) noexcept;
    // cudaFreeHost()s every cached block.
    void releaseCached() noexcept;

private:
    int m_device;
    std::mutex m_mutex;
    BlockLists m_blocks;
};

} // namespace tb::cuda

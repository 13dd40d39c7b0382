// The backend's two streams (compute and copy) and StreamEvent on top of cudaEvent.
#pragma once

#include "backend/backend.h"

#include <cuda_runtime.h>

namespace tb::cuda {

// Owns one device's compute stream (every op) and copy stream (host-to-device copies from
// pinned memory). Both are non-blocking with respect to the legacy default stream.
class Streams {
public:
    explicit Streams(int device);
    ~Streams();
    Streams(const Streams&) = delete;
    Streams& operator=(const Streams&) = delete;

    int device() const { return m_device; }
    cudaStream_t compute() const { return m_compute; }
    cudaStream_t copy() const { return m_copy; }

    // Orders later copy-stream work after everything issued so far to the compute stream.
    void copyAfterCompute();
    // Orders later copy-stream work after `event` alone (recorded on the compute stream).
    void copyAfter(cudaEvent_t event);
    // Orders later compute-stream work after everything issued so far to the copy stream.
    void computeAfterCopy();

private:
    int m_device;
    cudaStream_t m_compute = nullptr;
    cudaStream_t m_copy = nullptr;
    // Reused: a wait captures the event's state when it is issued, so re-recording is safe.
    cudaEvent_t m_computeMark = nullptr;
    cudaEvent_t m_copyMark = nullptr;
};

// A timing event recorded on a stream.
class CudaStreamEvent : public StreamEvent {
public:
    explicit CudaStreamEvent(cudaStream_t stream);
    ~CudaStreamEvent() override;
    CudaStreamEvent(const CudaStreamEvent&) = delete;
    CudaStreamEvent& operator=(const CudaStreamEvent&) = delete;

    bool completed() override;
    void wait() override;
    cudaEvent_t event() const { return m_event; }
    // Throws tb::Error when `earlier` is not a CUDA event or either event is still pending.
    float elapsedMs(const StreamEvent& earlier) override;

private:
    cudaEvent_t m_event = nullptr;
};

// Makes `device` current for the calling thread for the scope and restores the previous one, so
// a backend can be created on one thread and used on another.
class DeviceScope {
public:
    explicit DeviceScope(int device);
    ~DeviceScope();
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

private:
    int m_previous = -1;
};

} // namespace tb::cuda

// Stream pair, CUDA timing events and the current-device guard.
#include "streams.h"

#include "cudacheck.h"

namespace tb::cuda {

Streams::Streams(int device) : m_device(device) {
    DeviceScope scope(device);
    TB_CUDA_CHECK(cudaStreamCreateWithFlags(&m_compute, cudaStreamNonBlocking));
    TB_CUDA_CHECK(cudaStreamCreateWithFlags(&m_copy, cudaStreamNonBlocking));
    TB_CUDA_CHECK(cudaEventCreateWithFlags(&m_computeMark, cudaEventDisableTiming));
    TB_CUDA_CHECK(cudaEventCreateWithFlags(&m_copyMark, cudaEventDisableTiming));
}

Streams::~Streams() {
    // No throwing from here: at process exit the runtime may already be unloading.
    int previous = 0;
    if (cudaGetDevice(&previous) == cudaSuccess)
        (void)cudaSetDevice(m_device);
    (void)cudaEventDestroy(m_copyMark);
    (void)cudaEventDestroy(m_computeMark);
    (void)cudaStreamDestroy(m_copy);
    (void)cudaStreamDestroy(m_compute);
    (void)cudaSetDevice(previous);
}

void Streams::copyAfterCompute() {
    TB_CUDA_CHECK(cudaEventRecord(m_computeMark, m_compute));
    TB_CUDA_CHECK(cudaStreamWaitEvent(m_copy, m_computeMark, 0));
}

void Streams::copyAfter(cudaEvent_t event) {
    TB_CUDA_CHECK(cudaStreamWaitEvent(m_copy, event, 0));
}

void Streams::computeAfterCopy() {
    TB_CUDA_CHECK(cudaEventRecord(m_copyMark, m_copy));
    TB_CUDA_CHECK(cudaStreamWaitEvent(m_compute, m_copyMark, 0));
}

CudaStreamEvent::CudaStreamEvent(cudaStream_t stream) {
    TB_CUDA_CHECK(cudaEventCreate(&m_event));
    TB_CUDA_CHECK(cudaEventRecord(m_event, stream));
}

CudaStreamEvent::~CudaStreamEvent() {
    (void)cudaEventDestroy(m_event);
}

bool CudaStreamEvent::completed() {
    const cudaError_t status = cudaEventQuery(m_event);
    if (status == cudaErrorNotReady) {
        (void)cudaGetLastError();
        return false;
    }
    TB_CUDA_CHECK(status);
    return true;
}

void CudaStreamEvent::wait() {
    TB_CUDA_CHECK(cudaEventSynchronize(m_event));
}

float CudaStreamEvent::elapsedMs(const StreamEvent& earlier) {
    const auto* other = dynamic_cast<const CudaStreamEvent*>(&earlier);
    if (!other)
        throw Error("elapsedMs: the earlier event does not come from the CUDA backend");
    float ms = 0.0f;
    TB_CUDA_CHECK(cudaEventElapsedTime(&ms, other->m_event, m_event));
    return ms;
}

DeviceScope::DeviceScope(int device) {
    TB_CUDA_CHECK(cudaGetDevice(&m_previous));
    if (m_previous != device)
        TB_CUDA_CHECK(cudaSetDevice(device));
    else
        m_previous = -1; // nothing to restore
}

DeviceScope::~DeviceScope() {
    if (m_previous >= 0)
        (void)cudaSetDevice(m_previous);
}

} // namespace tb::cuda

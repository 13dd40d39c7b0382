// NcclCollectives: NCCL calls, the events that order them, and the watchdog.
#include "ncclcollectives.h"

#include "cudacheck.h"
#include "ncclapi.h"

#include <cstring>

// In a member function: a failed NCCL call becomes a DistributedError naming this rank.
#define TB_NCCL_CHECK(call)                                                                        \
    do {                                                                                           \
        const ncclResult_t tbNccl_ = (call);                                                       \
        if (tbNccl_ != ncclSuccess)                                                                \
            throw DistributedError(-1, "rank " + std::to_string(m_rank) + ": " +                   \
                                           ncclText(tbNccl_, #call));                              \
    } while (0)

namespace tb::cuda {

namespace {

std::string ncclText(ncclResult_t result, const char* call) {
    return std::string(call) + " failed: " + nccl().getErrorString(result);
}

void requirePlainF32(const Tensor& t, const char* op) {
    if (t.dtype() != DType::F32)
        throw Error(std::string(op) + ": NCCL collectives here take float32 tensors");
}

} // namespace

DeviceCollectivesId NcclCollectives::newId() {
    ncclUniqueId id;
    const ncclResult_t result = nccl().getUniqueId(&id);
    if (result != ncclSuccess)
        throw DistributedError(0, ncclText(result, "ncclGetUniqueId"));
    DeviceCollectivesId out;
    static_assert(sizeof id == DeviceCollectivesId::kBytes);
    std::memcpy(out.bytes, &id, sizeof id);
    return out;
}

NcclCollectives::NcclCollectives(int device, cudaStream_t compute, const DeviceCollectivesId& id,
                                 int rank, int size, std::chrono::milliseconds timeout)
    : m_device(device), m_rank(rank), m_compute(compute), m_timeout(timeout) {
    DeviceScope scope(device);
    TB_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
    TB_CUDA_CHECK(cudaEventCreateWithFlags(&m_computeMark, cudaEventDisableTiming));
    TB_CUDA_CHECK(cudaEventCreateWithFlags(&m_collectiveMark, cudaEventDisableTiming));
    ncclUniqueId nid;
    std::memcpy(&nid, id.bytes, sizeof nid);
    // Every rank got here after the MPI broadcast of the id: they are alive and connect now.
    TB_NCCL_CHECK(nccl().commInitRank(&m_comm, size, nid, rank));
    m_watchdog = std::jthread([this](std::stop_token stop) { watch(stop); });
}

NcclCollectives::~NcclCollectives() {
    m_watchdog = {}; // stops and joins it
    DeviceScope scope(m_device);
    {
        std::lock_guard lock(m_mutex);
        if (m_comm && m_error.empty()) {
            // A clean end: what is in flight completes, then the communicator goes.
            (void)cudaStreamSynchronize(m_stream);
            (void)nccl().commDestroy(m_comm);
        }
        for (const InFlight& w : m_inFlight)
            (void)cudaEventDestroy(w.done);
    }
    (void)cudaEventDestroy(m_collectiveMark);
    (void)cudaEventDestroy(m_computeMark);
    (void)cudaStreamDestroy(m_stream);
}

void NcclCollectives::afterCompute() {
    TB_CUDA_CHECK(cudaEventRecord(m_computeMark, m_compute));
    TB_CUDA_CHECK(cudaStreamWaitEvent(m_stream, m_computeMark, 0));
}

void NcclCollectives::track(const char* what) {
    cudaEvent_t done = nullptr;
    TB_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    TB_CUDA_CHECK(cudaEventRecord(done, m_stream));
    std::lock_guard lock(m_mutex);
    m_inFlight.push_back({done, std::chrono::steady_clock::now(), what});
}

void NcclCollectives::allReduceAverage(Tensor& t) {
    requirePlainF32(t, "allReduceAverage");
    check();
    DeviceScope scope(m_device);
    afterCompute();
    TB_NCCL_CHECK(nccl().allReduce(t.raw(), t.raw(), static_cast<std::size_t>(t.numel()), ncclFloat,
                                   ncclAvg, m_comm, m_stream));
    track("an all-reduce");
}

void NcclCollectives::broadcast(Tensor& t, int root) {
    requirePlainF32(t, "broadcast");
    check();
    DeviceScope scope(m_device);
    afterCompute();
    TB_NCCL_CHECK(nccl().broadcast(t.raw(), t.raw(), static_cast<std::size_t>(t.numel()), ncclFloat,
                                   root, m_comm, m_stream));
    track("a broadcast");
}

void NcclCollectives::join() {
    check();
    DeviceScope scope(m_device);
    TB_CUDA_CHECK(cudaEventRecord(m_collectiveMark, m_stream));
    TB_CUDA_CHECK(cudaStreamWaitEvent(m_compute, m_collectiveMark, 0));
}

void NcclCollectives::check() {
    std::lock_guard lock(m_mutex);
    if (!m_error.empty())
        throw DistributedError(-1, m_error);
}

std::string NcclCollectives::description() const {
    int version = 0;
    (void)nccl().getVersion(&version);
    // NCCL_VERSION(X, Y, Z) is X * 10000 + Y * 100 + Z since 2.9.
    return "NCCL " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) +
           "." + std::to_string(version % 100);
}

void NcclCollectives::fail(const std::string& why) {
    if (!m_error.empty())
        return;
    m_error = "rank " + std::to_string(m_rank) + ": " + why;
    // Aborting makes the NCCL kernels waiting for a dead peer exit, so the streams drain.
    (void)nccl().commAbort(m_comm);
}

void NcclCollectives::watch(std::stop_token stop) {
    DeviceScope scope(m_device);
    while (!stop.stop_requested()) {
        {
            std::lock_guard lock(m_mutex);
            if (m_error.empty()) {
                ncclResult_t async = ncclSuccess;
                if (nccl().commGetAsyncError(m_comm, &async) == ncclSuccess &&
                    async != ncclSuccess && async != ncclInProgress)
                    fail(std::string("NCCL reported an error: ") + nccl().getErrorString(async) +
                         "; another rank died or its network failed");
            }
            while (!m_inFlight.empty()) {
                InFlight& w = m_inFlight.front();
                const cudaError_t state = cudaEventQuery(w.done);
                if (state == cudaErrorNotReady) {
                    (void)cudaGetLastError();
                    if (m_error.empty() && std::chrono::steady_clock::now() - w.started > m_timeout)
                        fail(std::string(w.what) + " did not complete within " +
                             std::to_string(m_timeout.count() / 1000) +
                             " s (ddp.timeout_s): another rank died or hangs");
                    if (m_error.empty())
                        break; // still running, within its time
                }
                (void)cudaEventDestroy(w.done); // done, failed, or abandoned after an abort
                m_inFlight.pop_front();
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

} // namespace tb::cuda

// NcclCollectives: DeviceCollectives on NCCL, for the ranks of a data-parallel job that train on
// GPUs. Collectives run on a stream of their own, ordered after the compute stream's work by an
// event, so backward keeps computing while its finished gradient buckets are averaged; join()
// orders the compute stream after them again. A watchdog thread (as PyTorch's ProcessGroupNCCL)
// polls the communicator's asynchronous error and every collective in flight, and aborts the
// communicator when one fails or outlives the timeout: the NCCL kernels then exit, the streams
// drain, and the next call throws DistributedError, so no rank waits forever.
#pragma once

#include "backend/devicecollectives.h"
#include "streams.h"

#include <nccl.h>

#include <chrono>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace tb::cuda {

class NcclCollectives final : public DeviceCollectives {
public:
    // Joins the job's communicator as `rank` of `size` on `device`, ordering its collectives
    // after `compute`. Throws DistributedError when NCCL cannot connect.
    NcclCollectives(int device, cudaStream_t compute, const DeviceCollectivesId& id, int rank,
                    int size, std::chrono::milliseconds timeout);
    ~NcclCollectives() override;
    NcclCollectives(const NcclCollectives&) = delete;
    NcclCollectives& operator=(const NcclCollectives&) = delete;

    static DeviceCollectivesId newId();

    void allReduceAverage(Tensor& t) override;
    void broadcast(Tensor& t, int root) override;
    void join() override;
    void check() override;
    std::string description() const override;

private:
    // Orders the collective stream after the compute stream's work so far.
    void afterCompute();
    // Remembers the collective just enqueued, for the watchdog.
    void track(const char* what);
    void watch(std::stop_token stop);
    // Called with m_mutex held: records why and aborts the communicator once.
    void fail(const std::string& why);

    int m_device;
    int m_rank;
    cudaStream_t m_compute;
    cudaStream_t m_stream = nullptr;
    cudaEvent_t m_computeMark = nullptr;
    cudaEvent_t m_collectiveMark = nullptr;
    ncclComm_t m_comm = nullptr;
    std::chrono::milliseconds m_timeout;

    struct InFlight {
        cudaEvent_t done;
        std::chrono::steady_clock::time_point started;
        const char* what;
    };
    std::mutex m_mutex;
    std::deque<InFlight> m_inFlight;
    std::string m_error; // set once the communicator is aborted
    std::jthread m_watchdog;
};

} // namespace tb::cuda

// DeviceCollectives: the collectives of a data-parallel job on tensors that stay on the GPU
// (NCCL, inside the CUDA plugin). Each call is collective (every rank makes it, in the same
// order) and is enqueued in stream order after the work already issued to the backend's compute
// stream; the host never waits for one. A watchdog ends a collective that fails or outlives the
// timeout (ncclCommAbort), and the next call, or check(), throws DistributedError saying why.
#pragma once

#include "core/tensor.h"

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

namespace tb {

class Backend;

class DeviceCollectives {
public:
    virtual ~DeviceCollectives() = default;

    // Replaces `t` (f32, plain, on the backend's device) by its average over the ranks. Runs on
    // a stream of its own, so the compute stream goes on (backward overlaps it) until join().
    virtual void allReduceAverage(Tensor& t) = 0;
    // Root's `t` to every rank, in place, on the same stream.
    virtual void broadcast(Tensor& t, int root) = 0;
    // Later work on the compute stream waits for every collective started so far.
    virtual void join() = 0;
    // Throws DistributedError when the watchdog found a collective failed or timed out.
    virtual void check() = 0;
    // "NCCL 2.28.9".
    virtual std::string description() const = 0;
};

// NCCL's unique id: made by rank 0, handed to the others (over MPI) before they connect.
struct DeviceCollectivesId {
    static constexpr std::size_t kBytes = 128;
    char bytes[kBytes] = {};
};

} // namespace tb

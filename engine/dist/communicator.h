// Communicator: one rank's view of a data-parallel job, the few collectives data-parallel
// training needs. Every call is collective (all ranks make it, in the same order) and gives up
// after the job's timeout with a DistributedError, so a rank that died or hangs never leaves the
// others waiting forever. The MPI implementation is in mpicommunicator.h.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace tb {

class Communicator {
public:
    // A collective in flight. wait() returns once it completed, or throws DistributedError when
    // it has not after the communicator's timeout.
    class Request {
    public:
        virtual ~Request() = default;
        // Drives the transfer on (MPI progresses non-blocking collectives inside its calls)
        // and says whether it completed.
        virtual bool test() = 0;
        virtual void wait() = 0;
    };

    virtual ~Communicator() = default;

    virtual int rank() const = 0;
    virtual int size() const = 0;
    // The rank among those on this machine (the GPU a rank trains on is its local rank).
    virtual int localRank() const = 0;
    virtual std::chrono::milliseconds timeout() const = 0;
    virtual void setTimeout(std::chrono::milliseconds timeout) = 0;

    // Sums `count` floats across ranks in place; returns at once, done when the request is.
    virtual std::unique_ptr<Request> allReduceSumAsync(float* data, std::size_t count) = 0;
    void allReduceSum(float* data, std::size_t count) { allReduceSumAsync(data, count)->wait(); }
    void allReduceSum(double* data, std::size_t count);
    // Root's `count` floats to every rank.
    virtual void broadcast(float* data, std::size_t count, int root) = 0;
    // Root's `count` bytes to every rank (an id, a short text).
    virtual void broadcastBytes(void* data, std::size_t count, int root) = 0;
    // Every rank's `value`, in rank order, on every rank.
    virtual std::vector<uint64_t> allGather(uint64_t value) = 0;
    // Every rank's `values` (the same count on each) to `root`, rank after rank; empty
    // elsewhere.
    virtual std::vector<double> gather(const std::vector<double>& values, int root) = 0;
    // Ends every rank of the job now (after a failure this rank has recorded).
    [[noreturn]] virtual void abort(int code) = 0;

protected:
    virtual void allReduceSumDoubles(double* data, std::size_t count) = 0;
};

inline void Communicator::allReduceSum(double* data, std::size_t count) {
    allReduceSumDoubles(data, count);
}

} // namespace tb

// MpiCommunicator: the job's ranks as MPI (OpenMPI's mpirun, or srun under Slurm) started them.
// Errors return instead of aborting (MPI_ERRORS_RETURN) and become DistributedError naming the
// call; every wait polls with MPI_Test until the timeout, so a dead or hung rank is a clear
// error, not a hang. The local rank comes from the ranks that share this machine's memory
// (MPI_Comm_split_type), so it is right under any launcher.
#pragma once

#include "dist/communicator.h"

namespace tb {

class MpiCommunicator final : public Communicator {
public:
    // The world of this process: MPI is initialised on first use and finalised at exit.
    // Throws DistributedError when this build has no MPI or MPI cannot start.
    static MpiCommunicator& world();
    // Whether the process was started by an MPI launcher (mpirun, srun): its variables are set.
    static bool launchedByMpi();

    int rank() const override { return m_rank; }
    int size() const override { return m_size; }
    int localRank() const override { return m_localRank; }
    std::chrono::milliseconds timeout() const override { return m_timeout; }
    void setTimeout(std::chrono::milliseconds timeout) override { m_timeout = timeout; }

    std::unique_ptr<Request> allReduceSumAsync(float* data, std::size_t count) override;
    void broadcast(float* data, std::size_t count, int root) override;
    void broadcastBytes(void* data, std::size_t count, int root) override;
    std::vector<uint64_t> allGather(uint64_t value) override;
    std::vector<double> gather(const std::vector<double>& values, int root) override;
    [[noreturn]] void abort(int code) override;

protected:
    void allReduceSumDoubles(double* data, std::size_t count) override;

private:
    MpiCommunicator();

    int m_rank = 0;
    int m_size = 1;
    int m_localRank = 0;
    std::chrono::milliseconds m_timeout{std::chrono::minutes(5)};
};

} // namespace tb

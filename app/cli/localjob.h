// trainbench-cli train --nproc N (and profile --nproc N): the same command as a local
// data-parallel job of N ranks, started through mpirun (so srun, hostfiles and every MPI option
// stay available by running mpirun yourself).
#pragma once

#include <string>
#include <vector>

namespace tb::cli {

// The mpirun command line that runs `trainbench-cli <command> trainArgs` (the command's arguments
// without --nproc) on N
// ranks: distributed=mpi, and the cores split between the ranks when the config's threads is
// 0 (one per core); otherwise each rank takes `threads`.
std::vector<std::string> localJobCommand(const std::string& command,
                                         const std::vector<std::string>& trainArgs, int ranks,
                                         int threads);
// The command's arguments less --nproc and its value, for its ranks, with ranks=N set instead.
std::vector<std::string> jobArguments(const std::vector<std::string>& argv, int ranks);
// Runs that mpirun and waits for it; returns rank 0's exit status (mpirun's own when rank 0
// gave none, 127 when mpirun cannot be started). A SIGINT or SIGTERM stops the job as it stops
// one process: after the same step on every rank, with a checkpoint (a second one kills it).
int runLocalJob(const std::string& command, const std::vector<std::string>& trainArgs, int ranks,
                int threads);
// In rank 0 of a job runLocalJob started: tells it the status to exit with.
void reportJobStatus(int code);
// Whether this process is a rank of a job runLocalJob started.
bool underLocalJob();

} // namespace tb::cli

// MpiCommunicator: non-blocking collectives waited for by polling, so the wait can end.
#include "dist/mpicommunicator.h"

#include "core/errors.h"

// The C API only: the deprecated C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace tb {

namespace {

std::string mpiErrorText(int code) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    return std::string(text, static_cast<std::size_t>(length));
}

void check(int code, const char* what, int rank) {
    if (code != MPI_SUCCESS)
        throw DistributedError(-1, "rank " + std::to_string(rank) + ": " + what +
                                       " failed: " + mpiErrorText(code));
}

int countOf(std::size_t count) {
    if (count > static_cast<std::size_t>(INT_MAX))
        throw DistributedError(-1, "a collective of " + std::to_string(count) +
                                       " values is larger than MPI counts reach");
    return static_cast<int>(count);
}

// Liveness: a rank waiting in a collective answers pings on the control communicator, so when
// rank 0 gives up waiting it can tell the ranks that died or hang from those that wait too.
constexpr int kPingTag = 1, kPongTag = 2;
MPI_Comm g_control = MPI_COMM_NULL;
bool g_failed = false; // a wait gave up: the job is over, pending requests are left as they are

void answerPings() {
    int pinged = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kPingTag, g_control, &pinged, &status);
    if (!pinged)
        return;
    int token = 0;
    MPI_Recv(&token, 1, MPI_INT, status.MPI_SOURCE, kPingTag, g_control, MPI_STATUS_IGNORE);
    MPI_Request reply;
    MPI_Isend(&token, 1, MPI_INT, status.MPI_SOURCE, kPongTag, g_control, &reply);
    MPI_Request_free(&reply); // a one-int eager send: it completes on its own
}

// The ranks that do not answer a ping within `patience`.
std::vector<int> silentRanks(int self, int size, std::chrono::milliseconds patience) {
    std::vector<int> tokens(static_cast<std::size_t>(size), 1), answers(tokens.size(), 0);
    std::vector<MPI_Request> sends(tokens.size(), MPI_REQUEST_NULL), receives = sends;
    for (int r = 0; r < size; ++r) {
        if (r == self)
            continue;
        const auto i = static_cast<std::size_t>(r);
        MPI_Isend(&tokens[i], 1, MPI_INT, r, kPingTag, g_control, &sends[i]);
        MPI_Irecv(&answers[i], 1, MPI_INT, r, kPongTag, g_control, &receives[i]);
    }
    const auto deadline = std::chrono::steady_clock::now() + patience;
    std::vector<bool> answered(tokens.size(), false);
    while (std::chrono::steady_clock::now() < deadline) {
        bool all = true;
        for (int r = 0; r < size; ++r) {
            const auto i = static_cast<std::size_t>(r);
            if (r == self || answered[i])
                continue;
            int done = 0;
            if (MPI_Test(&receives[i], &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done)
                answered[i] = true;
            else
                all = false;
        }
        if (all)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::vector<int> silent;
    for (int r = 0; r < size; ++r)
        if (r != self && !answered[static_cast<std::size_t>(r)])
            silent.push_back(r);
    return silent; // their requests stay pending: the job ends with this error
}

// Polls `request` until it completes or `timeout` passes. Polling rather than MPI_Wait: a peer
// that died never completes it. Rank 0 then names the ranks that stopped answering; the others
// wait a little longer than rank 0, so that rank 0, which records the run, is the one that
// decides. Non-blocking collectives advance only inside MPI calls, so the loop polls without
// sleeping, yielding the core to any other thread, as MPI_Wait itself spins.
void waitFor(MPI_Request& request, std::chrono::milliseconds timeout, const char* what, int rank,
             int size) {
    const auto start = std::chrono::steady_clock::now();
    const auto patience = rank == 0 ? timeout : timeout + std::chrono::seconds(10);
    while (true) {
        int done = 0;
        check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what, rank);
        if (done)
            return;
        const auto waited = std::chrono::steady_clock::now() - start;
        if (waited > patience) {
            // The request stays pending: the job is over, and abort() ends it.
            g_failed = true;
            char seconds[32];
            std::snprintf(seconds, sizeof seconds, "%.1f", timeout.count() / 1000.0);
            const std::string after =
                std::string(what) + " did not complete within " + seconds + " s (ddp.timeout_s)";
            if (rank == 0)
                if (const std::vector<int> silent =
                        silentRanks(rank, size, std::chrono::seconds(2));
                    !silent.empty())
                    throw DistributedError(
                        silent.front(), "rank " + std::to_string(silent.front()) +
                                            " died or hangs: it stopped answering, and " + after);
            throw DistributedError(-1, "rank " + std::to_string(rank) + ": " + after +
                                           ": another rank died or hangs");
        }
        answerPings();
        std::this_thread::yield();
    }
}

class MpiRequest final : public Communicator::Request {
public:
    MpiRequest(MPI_Request request, std::chrono::milliseconds timeout, int rank, int size)
        : m_request(request), m_timeout(timeout), m_rank(rank), m_size(size) {}
    ~MpiRequest() override {
        if (!m_done && !g_failed && m_request != MPI_REQUEST_NULL) {
            // A collective cannot be cancelled; completing it keeps the ranks in step.
            try {
                waitFor(m_request, m_timeout, "an all-reduce", m_rank, m_size);
            } catch (const DistributedError&) {
            }
        }
    }
    bool test() override {
        if (m_done)
            return true;
        int done = 0;
        check(MPI_Test(&m_request, &done, MPI_STATUS_IGNORE), "an all-reduce", m_rank);
        m_done = done != 0;
        return m_done;
    }
    void wait() override {
        if (m_done)
            return;
        waitFor(m_request, m_timeout, "an all-reduce", m_rank, m_size);
        m_done = true;
    }

private:
    MPI_Request m_request;
    std::chrono::milliseconds m_timeout;
    int m_rank;
    int m_size;
    bool m_done = false;
};

void finalize() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
        MPI_Finalize();
}

} // namespace

bool MpiCommunicator::launchedByMpi() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_PROCID"})
        if (std::getenv(v))
            return true;
    return false;
}

MpiCommunicator& MpiCommunicator::world() {
    static MpiCommunicator world;
    return world;
}

MpiCommunicator::MpiCommunicator() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
        // Open MPI's non-blocking all-reduce (libnbc) picks a binomial tree by default, which
        // moves every value through each rank: measured on 2 ranks over shared memory, 2 to 3x
        // slower from 1 to 64 MB than Rabenseifner's reduce-scatter + all-gather, which it also
        // has (as fast as the blocking MPI_Allreduce). An MCA setting of the user's wins.
        setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "3", 0);
        int provided = 0;
        // One thread at a time makes MPI calls (the trainer's); others may exist.
        if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
            throw DistributedError(-1, "MPI could not start (MPI_Init_thread failed)");
        std::atexit(finalize);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m_size);
    MPI_Comm local;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m_rank, MPI_INFO_NULL, &local),
          "finding the ranks on this machine", m_rank);
    MPI_Comm_rank(local, &m_localRank);
    MPI_Comm_free(&local);
    check(MPI_Comm_dup(MPI_COMM_WORLD, &g_control), "making the control communicator", m_rank);
    MPI_Comm_set_errhandler(g_control, MPI_ERRORS_RETURN);
}

std::unique_ptr<Communicator::Request> MpiCommunicator::allReduceSumAsync(float* data,
                                                                          std::size_t count) {
    MPI_Request request;
    check(MPI_Iallreduce(MPI_IN_PLACE, data, countOf(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
                         &request),
          "an all-reduce", m_rank);
    return std::make_unique<MpiRequest>(request, m_timeout, m_rank, m_size);
}

void MpiCommunicator::allReduceSumDoubles(double* data, std::size_t count) {
    MPI_Request request;
    check(MPI_Iallreduce(MPI_IN_PLACE, data, countOf(count), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                         &request),
          "an all-reduce", m_rank);
    waitFor(request, m_timeout, "an all-reduce", m_rank, m_size);
}

void MpiCommunicator::broadcast(float* data, std::size_t count, int root) {
    MPI_Request request;
    check(MPI_Ibcast(data, countOf(count), MPI_FLOAT, root, MPI_COMM_WORLD, &request),
          "a broadcast", m_rank);
    waitFor(request, m_timeout, "a broadcast", m_rank, m_size);
}

void MpiCommunicator::broadcastBytes(void* data, std::size_t count, int root) {
    MPI_Request request;
    check(MPI_Ibcast(data, countOf(count), MPI_BYTE, root, MPI_COMM_WORLD, &request), "a broadcast",
          m_rank);
    waitFor(request, m_timeout, "a broadcast", m_rank, m_size);
}

std::vector<uint64_t> MpiCommunicator::allGather(uint64_t value) {
    std::vector<uint64_t> all(static_cast<std::size_t>(m_size));
    MPI_Request request;
    check(MPI_Iallgather(&value, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD,
                         &request),
          "an all-gather", m_rank);
    waitFor(request, m_timeout, "an all-gather", m_rank, m_size);
    return all;
}

std::vector<double> MpiCommunicator::gather(const std::vector<double>& values, int root) {
    std::vector<double> all(m_rank == root ? values.size() * static_cast<std::size_t>(m_size) : 0);
    MPI_Request request;
    check(MPI_Igather(values.data(), countOf(values.size()), MPI_DOUBLE, all.data(),
                      countOf(values.size()), MPI_DOUBLE, root, MPI_COMM_WORLD, &request),
          "a gather", m_rank);
    waitFor(request, m_timeout, "a gather", m_rank, m_size);
    return all;
}

void MpiCommunicator::abort(int code) {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code); // MPI_Abort does not return; this keeps [[noreturn]] honest
}

} // namespace tb

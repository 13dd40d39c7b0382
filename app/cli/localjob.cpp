// The local job: mpirun -np N trainbench-cli train ... --set distributed=mpi. As root, mpirun
// wants --allow-run-as-root; more ranks than cores want --oversubscribe. Rank 0 writes its exit
// status to a file the launcher names, because mpirun under --enable-recovery exits 0.
// A stop: mpirun answers SIGINT and SIGTERM by killing the job after a few seconds' grace, too
// short for ranks that must agree on a step and save a checkpoint. So mpirun runs in a process
// group of its own (the terminal's Ctrl-C reaches only the launcher), and the launcher turns
// the first SIGINT or SIGTERM into SIGUSR1 sent to each rank (mpirun's children), the ranks'
// stop request, and a second into SIGTERM to mpirun, which ends the job at once.
#include "localjob.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace tb::cli {

std::vector<std::string> localJobCommand(const std::string& command,
                                         const std::vector<std::string>& trainArgs, int ranks,
                                         int threads) {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::string> cmd{"mpirun"};
    if (geteuid() == 0)
        cmd.push_back("--allow-run-as-root");
    if (static_cast<unsigned>(ranks) > cores)
        cmd.push_back("--oversubscribe");
    // Each rank binds nothing by itself: its compute pool takes the threads it is given. With
    // --enable-recovery a rank that dies does not take the others with it at once: rank 0 finds
    // it gone (ddp.timeout_s), names it in the run's record, then ends the job.
    // Its stdin is not the terminal's: mpirun's own process group must not read it.
    cmd.insert(cmd.end(), {"--enable-recovery", "--bind-to", "none", "--stdin", "none", "-np",
                           std::to_string(ranks)});
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    cmd.push_back(ec ? std::string("trainbench-cli") : self.string());
    cmd.push_back(command);
    cmd.insert(cmd.end(), trainArgs.begin(), trainArgs.end());
    cmd.insert(cmd.end(), {"--set", "distributed=mpi"});
    if (threads == 0)
        cmd.insert(cmd.end(), {"--set", "threads=" + std::to_string(std::max(1u, cores / ranks))});
    return cmd;
}

std::vector<std::string> jobArguments(const std::vector<std::string>& argv, int ranks) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        if (argv[i] == "--nproc") {
            ++i; // and its value
            continue;
        }
        if (argv[i].rfind("--nproc=", 0) != 0)
            out.push_back(argv[i]);
    }
    out.insert(out.end(), {"--set", "ranks=" + std::to_string(ranks)});
    return out;
}

namespace {
constexpr const char* kStatusFileVariable = "TB_JOB_STATUS_FILE";
volatile std::sig_atomic_t g_stopSignal = 0; // the first SIGINT or SIGTERM received
volatile std::sig_atomic_t g_stopRequests = 0;

void onStop(int signal) {
    if (g_stopSignal == 0)
        g_stopSignal = signal;
    g_stopRequests = g_stopRequests + 1;
}

// Sends `signal` to the processes mpirun (`job`) started: this machine's ranks. Returns how many.
int signalRanks(pid_t job, int signal) {
    int sent = 0;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        std::FILE* f = std::fopen((entry.path() / "stat").c_str(), "r");
        if (!f)
            continue;
        int pid = 0, ppid = 0;
        char state = 0;
        // "pid (comm) state ppid ...": comm may hold spaces, so read up to its closing ')'.
        char comm[256] = {};
        const bool read = std::fscanf(f, "%d (%255[^)]) %c %d", &pid, comm, &state, &ppid) == 4;
        std::fclose(f);
        if (read && ppid == job && kill(pid, signal) == 0)
            ++sent;
    }
    return sent;
}
} // namespace

void reportJobStatus(int code) {
    if (const char* path = std::getenv(kStatusFileVariable))
        if (std::FILE* f = std::fopen(path, "w")) {
            std::fprintf(f, "%d\n", code);
            std::fclose(f);
        }
}

bool underLocalJob() {
    return std::getenv(kStatusFileVariable) != nullptr;
}

int runLocalJob(const std::string& command, const std::vector<std::string>& trainArgs, int ranks,
                int threads) {
    const std::vector<std::string> cmd = localJobCommand(command, trainArgs, ranks, threads);
    std::vector<char*> argv;
    for (const std::string& a : cmd)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    char statusPath[] = "/tmp/trainbench-job-XXXXXX";
    const int fd = mkstemp(statusPath);
    if (fd >= 0)
        close(fd);
    setenv(kStatusFileVariable, statusPath, 1);
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t job = fork();
    if (job == 0) {
        setpgid(0, 0);
        execvp(argv[0], argv.data());
        std::fprintf(stderr,
                     "trainbench-cli %s: error: --nproc: cannot start mpirun: %s (install "
                     "openmpi-bin)\n",
                     command.c_str(), std::strerror(errno));
        std::_Exit(127);
    }
    std::signal(SIGINT, onStop);
    std::signal(SIGTERM, onStop);
    int status = 0, handled = 0;
    while (waitpid(job, &status, WNOHANG) != job) {
        if (g_stopRequests > handled) {
            handled = g_stopRequests;
            if (handled > 1)
                kill(job, SIGTERM); // asked again: mpirun ends the job now
            else if (signalRanks(job, SIGUSR1) == 0)
                kill(job, SIGUSR1); // ranks not found here: mpirun passes it on
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (std::FILE* f = std::fopen(statusPath, "r")) {
        int reported = 0;
        if (std::fscanf(f, "%d", &reported) == 1)
            code = reported;
        std::fclose(f);
    }
    unlink(statusPath);
    // Stopped on request: the status a shell expects of the signal this launcher was sent.
    if (g_stopSignal != 0 && code == 128 + SIGUSR1)
        code = 128 + g_stopSignal;
    return code;
}

} // namespace tb::cli

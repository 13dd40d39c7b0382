// The local job: mpirun -np N trainbench-cli train ... --set distributed=mpi. As root, mpirun
// wants --allow-run-as-root; more ranks than cores want --oversubscribe. Rank 0 writes its exit
// status to a file the launcher names, because mpirun under --enable-recovery exits 0.
#include "localjob.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace tb::cli {

std::vector<std::string> localJobCommand(const std::vector<std::string>& trainArgs, int ranks,
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
    cmd.insert(cmd.end(), {"--enable-recovery", "--bind-to", "none", "-np", std::to_string(ranks)});
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    cmd.push_back(ec ? std::string("trainbench-cli") : self.string());
    cmd.push_back("train");
    cmd.insert(cmd.end(), trainArgs.begin(), trainArgs.end());
    cmd.insert(cmd.end(), {"--set", "distributed=mpi"});
    if (threads == 0)
        cmd.insert(cmd.end(), {"--set", "threads=" + std::to_string(std::max(1u, cores / ranks))});
    return cmd;
}

namespace {
constexpr const char* kStatusFileVariable = "TB_JOB_STATUS_FILE";
pid_t g_job = 0;

void forwardToJob(int signal) {
    if (g_job > 0)
        kill(g_job, signal);
}
} // namespace

void reportJobStatus(int code) {
    if (const char* path = std::getenv(kStatusFileVariable))
        if (std::FILE* f = std::fopen(path, "w")) {
            std::fprintf(f, "%d\n", code);
            std::fclose(f);
        }
}

int runLocalJob(const std::vector<std::string>& trainArgs, int ranks, int threads) {
    const std::vector<std::string> cmd = localJobCommand(trainArgs, ranks, threads);
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
    g_job = fork();
    if (g_job == 0) {
        execvp(argv[0], argv.data());
        std::fprintf(stderr,
                     "trainbench-cli train: error: --nproc: cannot start mpirun: %s (install "
                     "openmpi-bin)\n",
                     std::strerror(errno));
        std::_Exit(127);
    }
    // Ctrl-C reaches mpirun from the terminal too; a SIGTERM sent to us alone is passed on.
    std::signal(SIGINT, SIG_IGN);
    std::signal(SIGTERM, forwardToJob);
    int status = 0;
    while (waitpid(g_job, &status, 0) < 0 && errno == EINTR) {
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (std::FILE* f = std::fopen(statusPath, "r")) {
        int reported = 0;
        if (std::fscanf(f, "%d", &reported) == 1)
            code = reported;
        std::fclose(f);
    }
    unlink(statusPath);
    return code;
}

} // namespace tb::cli

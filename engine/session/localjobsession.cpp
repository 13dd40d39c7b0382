// LocalJobSession: fork/exec of trainbench-cli, and a loop that polls the store (RunTail) and
// the process until both say the run is over.
#include "session/localjobsession.h"

#include "core/enginelocation.h"
#include "core/errors.h"
#include "core/runid.h"
#include "store/runstore.h"
#include "store/runtail.h"
#include "store/storeerror.h"
#include "train/checkpointer.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tb {

namespace fs = std::filesystem;

namespace {

bool executable(const fs::path& p) {
    return !p.empty() && ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p);
}

RunFinishedEvent finishedFrom(const RunRecord& r) {
    RunFinishedEvent ev;
    ev.status = r.status;
    ev.error = r.error;
    if (r.status == RunStatus::Failed && r.error.rfind("rank ", 0) == 0) {
        ev.failure.kind = FailureKind::Distributed;
        ev.failure.subject = r.error.substr(0, r.error.find_first_of(":", 5));
    }
    ev.checkpoint = r.checkpoint;
    RunSummary& s = ev.summary;
    s.bestValAcc = r.bestValAcc.value_or(0.0);
    s.bestEpoch = r.bestEpoch.value_or(0);
    s.finalTrainLoss = r.finalTrainLoss.value_or(0.0);
    s.finalValLoss = r.finalValLoss.value_or(0.0);
    s.finalValAcc = r.finalValAcc.value_or(0.0);
    s.meanSamplesPerSec = r.meanSamplesPerSec.value_or(0.0);
    s.peakMemoryBytes = r.peakMemoryBytes.value_or(0);
    s.durationSec = r.durationSec.value_or(0.0);
    s.steps = r.steps;
    s.epochs = r.epochs;
    return ev;
}

// A resumed run's rows from before the resume: what its earlier session already showed.
void dropWhatCameBefore(RunTailUpdate& u, double spawned) {
    const int64_t from = u.record ? u.record->resumedFromStep : 0;
    std::erase_if(u.steps, [&](const StepEvent& s) { return s.step <= from; });
    std::erase_if(u.epochs, [&](const EpochEvent& e) { return e.step <= from; });
    std::erase_if(u.samples, [&](const SystemSample& x) { return x.unixTime < spawned; });
    std::erase_if(u.logs, [&](const RunLogEntry& l) { return l.unixTime < spawned; });
}

// The last lines of a file (the job's output), for an error that has nothing better to say.
std::string lastLines(const fs::path& file, std::size_t count) {
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            lines.push_back(line);
    std::string out;
    for (std::size_t i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i)
        out += (out.empty() ? "" : " / ") + lines[i];
    return out;
}

// The job's process: trainbench-cli with its output in a file; killed with the session's
// thread if that ends first (PR_SET_PDEATHSIG), so a closed window leaves no job behind.
class JobProcess {
public:
    JobProcess(const std::vector<std::string>& args, const fs::path& output) {
        std::vector<char*> argv;
        for (const std::string& a : args)
            argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        const std::string out = output.string();
        m_pid = fork();
        if (m_pid == 0) { // only async-signal-safe calls until exec
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fd >= 0) {
                dup2(fd, STDOUT_FILENO);
                dup2(fd, STDERR_FILENO);
                close(fd);
            }
            execv(argv[0], argv.data());
            const char* why = "cannot start trainbench-cli\n";
            (void)!write(STDERR_FILENO, why, std::strlen(why));
            _exit(127);
        }
        if (m_pid < 0)
            throw Error(std::string("cannot start the data-parallel job: fork failed: ") +
                        std::strerror(errno));
    }
    ~JobProcess() {
        if (m_pid > 0 && !m_status) { // a session that throws: the job goes too
            kill(m_pid, SIGKILL);
            waitpid(m_pid, nullptr, 0);
        }
    }
    void signal(int sig) const { kill(m_pid, sig); }
    // The exit status once it ended (a signal as 128 + its number), without waiting.
    std::optional<int> status() {
        if (m_status)
            return m_status;
        int raw = 0;
        if (waitpid(m_pid, &raw, WNOHANG) == m_pid)
            m_status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
        return m_status;
    }

private:
    pid_t m_pid = -1;
    std::optional<int> m_status;
};

} // namespace

std::string trainbenchCliPath() {
    if (const char* env = std::getenv("TRAINBENCH_CLI"); env && *env)
        return env;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec && self.filename() == "trainbench-cli")
        return self.string();
    for (const fs::path& p : {ec ? fs::path() : self.parent_path() / "trainbench-cli",
                              buildTreeCliPath(), installedCliPath()})
        if (executable(p))
            return p.string();
    return "trainbench-cli";
}

LocalJobSession::LocalJobSession(RunConfig config, LocalJobOptions options,
                                 std::vector<EventSink*> sinks)
    : m_config(std::move(config)), m_options(std::move(options)), m_sinks(std::move(sinks)) {
    if (m_config.ranks < 2)
        throw ConfigError("ranks", "a data-parallel job needs ranks of 2 or more");
    if (m_options.databasePath.empty())
        throw ConfigError("ranks", "a data-parallel job started from here is followed through "
                                   "the run store its rank 0 writes, and there is none (--no-db "
                                   "or a store that cannot be opened)");
    if (!m_options.resumeFrom.empty()) { // the run goes on under its own id
        const std::string own = Checkpointer::runIdOf(m_options.resumeFrom);
        if (!m_options.runId.empty() && m_options.runId != own)
            throw ConfigError("--resume",
                              "the checkpoint belongs to run " + own + ", not " + m_options.runId);
        m_options.runId = own;
    }
    if (m_options.runId.empty())
        m_options.runId = makeRunId();
    if (m_options.cliPath.empty())
        m_options.cliPath = trainbenchCliPath();
}

LocalJobSession::~LocalJobSession() = default;

void LocalJobSession::deliver(const Event& event) {
    for (EventSink* s : m_sinks)
        s->onEvent(event);
}

RunFinishedEvent LocalJobSession::run(std::stop_token stop) {
    const fs::path scratch = fs::temp_directory_path() / ("trainbench-job-" + m_options.runId);
    std::error_code ec;
    fs::create_directories(scratch, ec);
    const fs::path configFile = scratch / "config.json", output = scratch / "output.log";
    bool started = false, finished = false;
    RunFinishedEvent end;
    const auto fail = [&](const std::string& why) {
        if (!started) { // every run is announced before its end, as a RunSession's
            RunStartedEvent ev;
            ev.runId = m_options.runId;
            ev.name = m_config.displayName();
            ev.config = m_config.toJson();
            ev.device = m_config.device;
            deliver(ev);
            started = true;
        }
        end = RunFinishedEvent{};
        end.status = RunStatus::Failed;
        end.error = why;
        end.failure.kind = FailureKind::Distributed;
        deliver(end);
        finished = true;
    };
    try {
        std::ofstream(configFile) << m_config.toJson().dump(2);
        std::vector<std::string> args{
            m_options.cliPath,      "train",  "--config", configFile.string(), "--db",
            m_options.databasePath, "--quiet"};
        if (m_options.resumeFrom.empty())
            args.insert(args.end(), {"--run-id", m_options.runId});
        else
            args.insert(args.end(), {"--resume", m_options.resumeFrom});
        const double spawned =
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        JobProcess job(args, output);
        std::unique_ptr<RunStore> store;
        std::unique_ptr<RunTail> tail;
        bool stopAsked = false;
        int unreadAfterExit = 0;
        while (!finished) {
            // Read before the store: once the job has exited, this poll sees its last commit.
            const std::optional<int> exited = job.status();
            if (stop.stop_requested() && !stopAsked) {
                job.signal(SIGTERM); // the CLI passes it to the job's ranks
                stopAsked = true;
            }
            try {
                if (!store)
                    store = openRunStoreForQueries(m_options.databasePath);
                // A resumed run is in the store already, as it ended before: it is followed
                // once the job has taken it up again (or has ended).
                if (!tail && store->contains(m_options.runId) &&
                    (m_options.resumeFrom.empty() || exited ||
                     store->getRun(m_options.runId).status == RunStatus::Running))
                    tail = std::make_unique<RunTail>(*store, m_options.runId);
            } catch (const StoreError&) {
                // Not there yet: the job creates the file, or its first row, in a moment.
            }
            std::optional<RunTailUpdate> polled;
            if (tail) {
                try {
                    polled = tail->poll();
                } catch (const StoreError&) {
                    // Busy beyond the store's timeout: the next poll reads what this one missed.
                }
            }
            if (polled) {
                RunTailUpdate& u = *polled;
                if (!m_options.resumeFrom.empty())
                    dropWhatCameBefore(u, spawned);
                if (u.record && !started) {
                    deliver(startedEventOf(*u.record));
                    started = true;
                }
                for (const RunLogEntry& l : u.logs) {
                    if (l.kind == RunLogEntry::Kind::Advice)
                        deliver(AdviceEvent{l.rule, l.message, l.step.value_or(0), l.unixTime});
                    else
                        deliver(LogEvent{l.level, l.message, l.unixTime});
                }
                for (const StepEvent& s : u.steps)
                    deliver(s);
                for (const EpochEvent& e : u.epochs)
                    deliver(e);
                if (m_options.forwardSystemSamples)
                    for (const SystemSample& s : u.samples)
                        deliver(SystemSampleEvent{s});
                if (u.deleted) {
                    fail("the run was deleted from the store while its job trained");
                } else if (tail->finished()) {
                    end = finishedFrom(*u.record);
                    deliver(end);
                    finished = true;
                }
            }
            // After the job's exit, a store that stays unreadable ends the wait (about 5 s).
            if (!finished && exited && (!tail || polled || ++unreadAfterExit > 25)) {
                const std::string said = lastLines(output, 3);
                fail("the data-parallel job ended (exit status " + std::to_string(*exited) +
                     ") without recording the run's end" + (said.empty() ? "" : ": " + said));
            }
            if (!finished)
                std::this_thread::sleep_for(m_options.pollInterval);
        }
        if (!job.status()) { // the run is recorded as over; the processes end in a moment
            while (!job.status())
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    } catch (const std::exception& e) {
        if (!finished)
            fail(e.what());
    }
    fs::remove_all(scratch, ec);
    return end;
}

} // namespace tb

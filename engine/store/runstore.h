// RunStore: the SQLite database of training runs (runs, step/epoch metrics, system samples,
// logs, tags). Queries are shaped for the UI's run table and the `runs` CLI command.
#pragma once

#include "core/systemsample.h"
#include "events/events.h"
#include "store/runrecord.h"

#include <chrono>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace tb {

class SqliteDb;
class SqliteTransaction;

struct RunStoreOptions {
    bool readOnly = false;                       // open for queries only; never creates
    std::chrono::milliseconds busyTimeout{5000}; // how long to wait for another writer
    bool markInterrupted = true;                 // see RunStore::markInterrupted()
    int64_t maxPageCount = 0;                    // > 0: cap the file (tests simulate a full disk)
    bool immutable = false; // with readOnly: nothing can change the file (see SqliteDb)
};

// dataDirectory()/runs.db: $XDG_DATA_HOME/TrainBench/runs.db, else
// ~/.local/share/TrainBench/runs.db. Only computes the path; RunStore creates missing folders
// when it opens the file for writing.
std::string defaultDatabasePath();

class RunStore;

// The store for queries (the CLI's listing and export, the window's runs view): writable when
// the file and its folder are (so runs of dead writers get marked interrupted), else read-only,
// and on a read-only mount immutable (SQLite cannot create its -shm file there). Throws
// StoreError: NotFound when there is no file, CannotOpen when a read-only folder holds a -wal
// file with changes that only a writable copy can read.
std::unique_ptr<RunStore> openRunStoreForQueries(const std::string& path);

// One connection to a run database. Not thread-safe: use one RunStore per thread (SQLite
// serialises connections and processes; WAL lets readers read while one run is written).
// Every method throws StoreError (naming the file) when the database cannot be used.
class RunStore {
public:
    // Opens path, creating the file and its folders unless readOnly; enables WAL, foreign keys
    // and the busy timeout; upgrades an older schema; marks runs of dead writers interrupted.
    explicit RunStore(const std::string& path, const RunStoreOptions& options = {});
    ~RunStore();
    RunStore(const RunStore&) = delete;
    RunStore& operator=(const RunStore&) = delete;

    const std::string& path() const;
    // Written by a newer TrainBench: opened read-only (only then is it allowed), shown as it is.
    bool newerSchema() const { return m_newerSchema; }

    // ---- queries ----
    // Runs matching filter, newest first.
    std::vector<RunRecord> listRuns(const RunFilter& filter = {});
    // The run whose id is idOrPrefix, or the only run whose id starts with it. Throws StoreError
    // (kind NotFound) when there is none, or when the prefix matches several runs.
    RunRecord getRun(const std::string& idOrPrefix);
    // The full id of idOrPrefix (see getRun).
    std::string resolveId(const std::string& idOrPrefix);
    // Whether a run with exactly this id is recorded.
    bool contains(const std::string& runId);
    // A run's rows in order: steps in (afterStep, lastStep], epochs after afterEpoch, samples
    // after afterTime (unix seconds). The defaults read everything; a follower passes the last
    // row it has and reads only what landed since.
    std::vector<StepEvent> stepMetrics(const std::string& runId, int64_t afterStep = 0,
                                       int64_t lastStep = std::numeric_limits<int64_t>::max());
    std::vector<EpochEvent> epochMetrics(const std::string& runId, int64_t afterEpoch = 0);
    std::vector<SystemSample> systemSamples(const std::string& runId,
                                            double afterTime = -std::numeric_limits<double>::max());
    // SQLite's PRAGMA data_version: changes whenever another connection (another process, the
    // recorder's thread) commits to the file, so a follower knows without reading any table.
    int64_t dataVersion();
    // The run's log lines and advice after row afterId, in order.
    std::vector<RunLogEntry> events(const std::string& runId, int64_t afterId = 0);
    // The run's layer profiles, oldest first; a row that is not a profile is skipped.
    std::vector<ProfileReport> profiles(const std::string& runId);
    // The runs with at least one profile, the most recently profiled first.
    std::vector<std::string> profiledRunIds();
    // "ok" entries are not returned: empty means PRAGMA integrity_check passed.
    std::vector<std::string> checkIntegrity();

    // ---- edits (ids must be exact; throw NotFound otherwise) ----
    void rename(const std::string& runId, const std::string& name);
    void setNotes(const std::string& runId, const std::string& notes);
    // The colour the run is drawn in wherever it is compared ("#rrggbb").
    void setColor(const std::string& runId, const std::string& color);
    void addTag(const std::string& runId, const std::string& tag);
    void removeTag(const std::string& runId, const std::string& tag);
    // Deletes the run and, by cascade, all its metrics, samples, logs and tags.
    void deleteRun(const std::string& runId);
    // Marks `running` runs whose writer process on this host is gone as `interrupted` (their
    // ended_at becomes the last recorded time). Returns how many. Called on open by default.
    int markInterrupted();

    // ---- writing a run (RunRecorder uses these inside one transaction per batch) ----
    void beginTransaction();
    void commit();
    void rollback();
    // Inserts the run as `running`, owned by this process. A resume (event.resumed) of a
    // recorded run makes it `running` again and drops its metrics after event.resumedFromStep;
    // a new run whose id is taken throws StoreError (kind DuplicateId) and changes nothing.
    void beginRun(const RunStartedEvent& event, double unixTime);
    void addStep(const std::string& runId, const StepEvent& step);
    // Also updates the run's best/final summary columns.
    void addEpoch(const std::string& runId, const EpochEvent& epoch);
    void addSystemSample(const std::string& runId, const SystemSample& sample);
    void addLog(const std::string& runId, const LogEvent& log);
    void addAdvice(const std::string& runId, const AdviceEvent& advice);
    void addProfile(const std::string& runId, const ProfileReport& profile);
    // Progress columns (steps, duration) of a running run, so interrupted runs show them.
    void updateProgress(const std::string& runId, int64_t steps, double unixTime);
    void finishRun(const std::string& runId, const RunFinishedEvent& event, double unixTime);

    // The connection, for tests and tools in engine/store.
    SqliteDb& db() { return *m_db; }
    // From any thread: waits for another process's lock end at once (SqliteDb::stopWaiting).
    void stopWaitingForLocks();

private:
    void requireRun(const std::string& runId, int64_t changes);
    void requireExists(const std::string& runId);
    std::vector<std::string> tagsOf(const std::string& runId);

    std::unique_ptr<SqliteDb> m_db;
    std::unique_ptr<SqliteTransaction> m_tx;
    bool m_newerSchema = false;
};

} // namespace tb

// RunStore: opening the database, queries for the UI and CLI, and edits of runs.
#include "store/runstore.h"

#include "core/datadirectory.h"
#include "io/jsontext.h"
#include "store/processidentity.h"
#include "store/schema.h"
#include "store/sqlitedb.h"
#include "store/storeerror.h"

#include <chrono>
#include <filesystem>

#include <unistd.h>

namespace tb {

namespace fs = std::filesystem;

namespace {

// Columns read by readRun(), in order.
constexpr const char* kRunColumns =
    "id, name, status, started_at, ended_at, config, environment, model_summary, dataset, model, "
    "device, notes, steps_per_epoch, total_steps, resumed_from_step, best_val_acc, best_epoch, "
    "final_train_loss, final_val_loss, final_val_acc, mean_samples_per_s, peak_memory_bytes, "
    "duration_s, steps, epochs, error, checkpoint, writer_pid, writer_host, color, best_miou";

nlohmann::json parseJson(const std::string& text) {
    return tryParseJson(text).value_or(nlohmann::json());
}

RunRecord readRun(const SqliteStatement& q) {
    RunRecord r;
    int c = 0;
    r.id = q.text(c++);
    r.name = q.text(c++);
    try {
        r.status = runStatusFromString(q.text(c++));
    } catch (const Error&) {
        r.status = RunStatus::Interrupted;
    }
    r.startedAt = q.real(c++);
    r.endedAt = q.optReal(c++);
    r.config = parseJson(q.text(c++));
    r.environment = parseJson(q.text(c++));
    r.modelSummary = parseJson(q.text(c++));
    r.dataset = q.text(c++);
    r.model = q.text(c++);
    r.device = q.text(c++);
    r.notes = q.text(c++);
    r.stepsPerEpoch = q.optInteger(c++);
    r.totalSteps = q.optInteger(c++);
    r.resumedFromStep = q.integer(c++);
    r.bestValAcc = q.optReal(c++);
    r.bestEpoch = q.optInteger(c++);
    r.finalTrainLoss = q.optReal(c++);
    r.finalValLoss = q.optReal(c++);
    r.finalValAcc = q.optReal(c++);
    r.meanSamplesPerSec = q.optReal(c++);
    if (const auto peak = q.optInteger(c++))
        r.peakMemoryBytes = static_cast<uint64_t>(*peak);
    r.durationSec = q.optReal(c++);
    r.steps = q.integer(c++);
    r.epochs = q.integer(c++);
    r.error = q.text(c++);
    r.checkpoint = q.text(c++);
    r.writerPid = q.optInteger(c++);
    r.writerHost = q.text(c++);
    r.color = q.text(c++);
    r.bestMeanIoU = q.optReal(c++);
    return r;
}

StoreError notFound(const std::string& path, const std::string& message) {
    return StoreError(StoreError::Kind::NotFound, path, message);
}

} // namespace

std::string defaultDatabasePath() {
    return (fs::path(dataDirectory()) / "runs.db").string();
}

RunStore::RunStore(const std::string& path, const RunStoreOptions& options) {
    if (!options.readOnly) {
        const fs::path parent = fs::path(path).parent_path();
        std::error_code ec;
        if (!parent.empty() && !fs::exists(parent, ec))
            fs::create_directories(parent, ec);
        if (ec)
            throw StoreError(StoreError::Kind::CannotOpen, path,
                             path + ": cannot create the folder " + parent.string() + " (" +
                                 ec.message() +
                                 "). Choose another file with --db PATH, or train without "
                                 "logging with --no-db.");
    }
    m_db =
        std::make_unique<SqliteDb>(path, options.readOnly, options.busyTimeout, options.immutable);
    // SQLite silently opens a file it may not write read-only; say so now, not at the first
    // write in the middle of a run.
    if (!options.readOnly && m_db->readOnly())
        throw StoreError::fromSqlite(path, 8 /* SQLITE_READONLY */,
                                     "the file or its folder is not writable", "opening it");
    m_db->exec("PRAGMA foreign_keys = ON", "opening it");
    // The first read of the file: random bytes fail here with "file is not a database".
    const int version = schemaVersion(*m_db);
    // A newer TrainBench's store: read-only it can still be shown (migrations only ever add),
    // written it must not be.
    m_newerSchema = version > currentSchemaVersion();
    if (m_newerSchema && !options.readOnly)
        migrateSchema(*m_db); // throws TooNew before writing anything
    // Before anything is changed (WAL mode, our tables): someone else's database stays theirs.
    if (version == 0 && holdsTables(*m_db))
        throw StoreError(StoreError::Kind::Corrupt, path,
                         path +
                             ": this SQLite database is not a TrainBench run database (it holds "
                             "other tables); it was left as it is. Choose another file with --db "
                             "PATH, or train without logging with --no-db.");
    if (options.readOnly) {
        if (version < currentSchemaVersion())
            throw StoreError(StoreError::Kind::Other, path,
                             path + (version == 0
                                         ? std::string(": this file holds no TrainBench runs "
                                                       "(it is empty).")
                                         : ": this run database has schema version " +
                                               std::to_string(version) +
                                               " and needs an upgrade; open it once for "
                                               "writing (any `trainbench-cli runs` edit or a "
                                               "training run) to upgrade it."));
        return;
    }
    {
        SqliteStatement& wal = m_db->cached("PRAGMA journal_mode = WAL");
        wal.step("switching to WAL mode");
        wal.reset();
    }
    m_db->exec("PRAGMA synchronous = NORMAL", "opening it"); // WAL: durable across crashes
    if (options.maxPageCount > 0)
        m_db->exec("PRAGMA max_page_count = " + std::to_string(options.maxPageCount));
    migrateSchema(*m_db);
    // A new or upgraded file: the migrations' pages (each schema step rewrote the same few) go
    // into the database and the log starts empty, so a small disk keeps its room for runs.
    if (version < currentSchemaVersion()) {
        SqliteStatement& checkpoint = m_db->cached("PRAGMA wal_checkpoint(TRUNCATE)");
        try {
            checkpoint.step("writing the new schema");
        } catch (const StoreError&) {
            // Busy or out of room: the log keeps the pages, as SQLite leaves it.
        }
        checkpoint.reset();
    }
    if (options.markInterrupted)
        markInterrupted();
}

void RunStore::stopWaitingForLocks() {
    m_db->stopWaiting();
}

std::unique_ptr<RunStore> openRunStoreForQueries(const std::string& path) {
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw StoreError(StoreError::Kind::NotFound, path,
                         path + ": no run database here yet. Train once, or pass --db PATH.");
    std::string folder = fs::path(path).parent_path().string();
    if (folder.empty())
        folder = ".";
    const bool folderWritable = access(folder.c_str(), W_OK) == 0;
    if (folderWritable && access(path.c_str(), W_OK) == 0) {
        try {
            return std::make_unique<RunStore>(path);
        } catch (const StoreError& e) {
            if (e.kind() != StoreError::Kind::ReadOnly && e.kind() != StoreError::Kind::Locked &&
                e.kind() != StoreError::Kind::TooNew)
                throw;
        }
    }
    RunStoreOptions options;
    options.readOnly = true;
    try {
        return std::make_unique<RunStore>(path, options);
    } catch (const StoreError& e) {
        // A WAL database needs its -shm file: in a read-only folder without one, only an
        // immutable open reads it, and that ignores the -wal file, so it must hold nothing.
        if (e.kind() != StoreError::Kind::CannotOpen || folderWritable)
            throw;
    }
    if (fs::file_size(path + "-wal", ec) > 0 && !ec)
        throw StoreError(StoreError::Kind::CannotOpen, path,
                         path + ": its folder is read-only and " + path +
                             "-wal holds changes not yet merged into it, which SQLite cannot "
                             "read there. Copy both files to a writable folder and pass --db "
                             "PATH.");
    options.immutable = true;
    return std::make_unique<RunStore>(path, options);
}

RunStore::~RunStore() = default;

const std::string& RunStore::path() const {
    return m_db->path();
}

std::vector<RunRecord> RunStore::listRuns(const RunFilter& filter) {
    std::string sql = std::string("SELECT ") + kRunColumns + " FROM runs WHERE 1";
    if (filter.status)
        sql += " AND status = :status";
    if (!filter.model.empty())
        sql += " AND model = :model";
    if (!filter.dataset.empty())
        sql += " AND dataset = :dataset";
    if (!filter.tag.empty())
        sql += " AND id IN (SELECT run_id FROM tags WHERE tag = :tag)";
    sql += " ORDER BY started_at DESC, id DESC";
    if (filter.limit > 0)
        sql += " LIMIT " + std::to_string(filter.limit);
    SqliteStatement q(*m_db, sql);
    int i = 0;
    if (filter.status)
        q.bind(++i, toString(*filter.status));
    if (!filter.model.empty())
        q.bind(++i, filter.model);
    if (!filter.dataset.empty())
        q.bind(++i, filter.dataset);
    if (!filter.tag.empty())
        q.bind(++i, filter.tag);
    std::vector<RunRecord> runs;
    while (q.step("listing runs"))
        runs.push_back(readRun(q));
    for (RunRecord& r : runs)
        r.tags = tagsOf(r.id);
    return runs;
}

std::string RunStore::resolveId(const std::string& idOrPrefix) {
    if (idOrPrefix.empty())
        throw notFound(path(), path() + ": no run id given.");
    SqliteStatement& q =
        m_db->cached("SELECT id FROM runs WHERE id = ?1 OR substr(id, 1, length(?1)) = ?1 "
                     "ORDER BY id = ?1 DESC, id LIMIT 3");
    q.bind(1, idOrPrefix);
    std::vector<std::string> ids;
    while (q.step("looking up a run"))
        ids.push_back(q.text(0));
    q.reset();
    if (ids.empty())
        throw notFound(path(), path() + ": no run with id '" + idOrPrefix +
                                   "'. `trainbench-cli runs list` shows the ids.");
    if (ids.size() > 1 && ids[0] != idOrPrefix)
        throw notFound(path(), path() + ": '" + idOrPrefix + "' matches several runs (" + ids[0] +
                                   ", " + ids[1] + (ids.size() > 2 ? ", ..." : "") +
                                   "); give more of the id.");
    return ids[0];
}

RunRecord RunStore::getRun(const std::string& idOrPrefix) {
    const std::string id = resolveId(idOrPrefix);
    SqliteStatement& q =
        m_db->cached(std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?1");
    q.bind(1, id);
    if (!q.step("reading a run"))
        throw notFound(path(), path() + ": no run with id '" + id + "'.");
    RunRecord r = readRun(q);
    q.reset();
    r.tags = tagsOf(id);
    return r;
}

std::vector<std::string> RunStore::tagsOf(const std::string& runId) {
    SqliteStatement& q = m_db->cached("SELECT tag FROM tags WHERE run_id = ?1 ORDER BY tag");
    q.bind(1, runId);
    std::vector<std::string> tags;
    while (q.step("reading tags"))
        tags.push_back(q.text(0));
    q.reset();
    return tags;
}

std::vector<std::string> RunStore::checkIntegrity() {
    SqliteStatement q(*m_db, "PRAGMA integrity_check");
    std::vector<std::string> problems;
    while (q.step("checking integrity")) {
        std::string line = q.text(0);
        if (line != "ok")
            problems.push_back(line);
    }
    return problems;
}

void RunStore::requireRun(const std::string& runId, int64_t changes) {
    if (changes == 0)
        throw notFound(path(), path() + ": no run with id '" + runId +
                                   "'. `trainbench-cli runs list` shows the ids.");
}

void RunStore::rename(const std::string& runId, const std::string& name) {
    m_db->cached("UPDATE runs SET name = ?2 WHERE id = ?1").bindAll(runId, name).run("renaming");
    requireRun(runId, m_db->changes());
}

void RunStore::setNotes(const std::string& runId, const std::string& notes) {
    m_db->cached("UPDATE runs SET notes = ?2 WHERE id = ?1").bindAll(runId, notes).run("notes");
    requireRun(runId, m_db->changes());
}

void RunStore::setColor(const std::string& runId, const std::string& color) {
    m_db->cached("UPDATE runs SET color = ?2 WHERE id = ?1").bindAll(runId, color).run("colour");
    requireRun(runId, m_db->changes());
}

int64_t RunStore::dataVersion() {
    SqliteStatement& q = m_db->cached("PRAGMA data_version");
    q.step("reading the data version");
    const int64_t version = q.integer(0);
    q.reset();
    return version;
}

bool RunStore::contains(const std::string& runId) {
    SqliteStatement& q = m_db->cached("SELECT count(*) FROM runs WHERE id = ?1");
    q.bind(1, runId);
    const int64_t n = q.step("looking up a run") ? q.integer(0) : 0;
    q.reset();
    return n > 0;
}

void RunStore::requireExists(const std::string& runId) {
    requireRun(runId, contains(runId) ? 1 : 0);
}

void RunStore::addTag(const std::string& runId, const std::string& tag) {
    requireExists(runId);
    m_db->cached("INSERT OR IGNORE INTO tags (run_id, tag) VALUES (?1, ?2)")
        .bindAll(runId, tag)
        .run("tagging a run");
}

void RunStore::removeTag(const std::string& runId, const std::string& tag) {
    requireExists(runId);
    m_db->cached("DELETE FROM tags WHERE run_id = ?1 AND tag = ?2")
        .bindAll(runId, tag)
        .run("untagging a run");
}

void RunStore::deleteRun(const std::string& runId) {
    m_db->cached("DELETE FROM runs WHERE id = ?1").bindAll(runId).run("deleting a run");
    requireRun(runId, m_db->changes());
}

int RunStore::markInterrupted() {
    struct Orphan {
        std::string id;
        ProcessIdentity writer;
    };
    std::vector<Orphan> orphans;
    {
        SqliteStatement& q =
            m_db->cached("SELECT id, writer_pid, writer_host, writer_start_ticks FROM runs "
                         "WHERE status = 'running'");
        while (q.step("looking for interrupted runs")) {
            Orphan o{q.text(0), {q.optInteger(1).value_or(0), q.text(2), q.optInteger(3)}};
            if (processGone(o.writer))
                orphans.push_back(std::move(o));
        }
        q.reset();
    }
    if (orphans.empty())
        return 0; // no write lock taken: opening works while another process writes
    SqliteTransaction tx(*m_db, "marking interrupted runs");
    for (const Orphan& o : orphans) {
        m_db->cached(
                "UPDATE runs SET status = 'interrupted', "
                "ended_at = max(started_at, coalesce((SELECT max(time) FROM step_metrics "
                "WHERE run_id = ?1), started_at), coalesce((SELECT max(time) FROM "
                "system_samples WHERE run_id = ?1), started_at)), "
                "error = 'the writing process (pid ' || ?2 || ' on ' || ?3 || ') ended without "
                "finishing the run' "
                "WHERE id = ?1 AND status = 'running'")
            .bindAll(o.id, o.writer.pid, o.writer.host)
            .run("marking interrupted runs");
        m_db->cached("UPDATE runs SET duration_s = ended_at - started_at WHERE id = ?1")
            .bindAll(o.id)
            .run("marking interrupted runs");
    }
    tx.commit();
    return static_cast<int>(orphans.size());
}

} // namespace tb

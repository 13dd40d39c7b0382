// Migrations of the run database. Append new ones; never edit one that has shipped.
#include "store/schema.h"

#include "store/sqlitedb.h"
#include "store/storeerror.h"

#include <array>
#include <string>

namespace tb {

namespace {

// Migration i (0-based) takes the schema from version i to i + 1. Times are Unix seconds (REAL);
// JSON columns hold text; NULL means "not measured" (and NaN, which SQLite cannot store).
constexpr std::array<const char*, 9> kMigrations = {
    R"sql(
CREATE TABLE runs (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'running'
        CHECK (status IN ('running', 'completed', 'stopped', 'failed', 'interrupted')),
    started_at REAL NOT NULL,
    ended_at REAL,
    config TEXT NOT NULL DEFAULT '{}',
    environment TEXT NOT NULL DEFAULT '{}',
    model_summary TEXT NOT NULL DEFAULT '{}',
    dataset TEXT NOT NULL DEFAULT '',
    model TEXT NOT NULL DEFAULT '',
    device TEXT NOT NULL DEFAULT '',
    notes TEXT NOT NULL DEFAULT '',
    steps_per_epoch INTEGER,
    total_steps INTEGER,
    resumed_from_step INTEGER NOT NULL DEFAULT 0,
    best_val_acc REAL,
    best_epoch INTEGER,
    final_train_loss REAL,
    final_val_loss REAL,
    final_val_acc REAL,
    mean_samples_per_s REAL,
    peak_memory_bytes INTEGER,
    duration_s REAL,
    steps INTEGER NOT NULL DEFAULT 0,
    epochs INTEGER NOT NULL DEFAULT 0,
    error TEXT NOT NULL DEFAULT '',
    checkpoint TEXT NOT NULL DEFAULT '',
    writer_pid INTEGER,
    writer_host TEXT NOT NULL DEFAULT '',
    writer_start_ticks INTEGER
);
CREATE INDEX runs_by_start ON runs (started_at DESC, id DESC);
CREATE INDEX runs_by_status ON runs (status);

CREATE TABLE tags (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE ON UPDATE CASCADE,
    tag TEXT NOT NULL,
    PRIMARY KEY (run_id, tag)
) WITHOUT ROWID;
CREATE INDEX tags_by_tag ON tags (tag);

CREATE TABLE step_metrics (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE ON UPDATE CASCADE,
    step INTEGER NOT NULL,
    epoch INTEGER NOT NULL,
    samples_seen INTEGER NOT NULL,
    time REAL NOT NULL,
    loss REAL,
    lr REAL,
    step_ms REAL,
    data_wait_ms REAL,
    h2d_ms REAL,
    forward_ms REAL,
    backward_ms REAL,
    optimizer_ms REAL,
    samples_per_s REAL,
    loss_scale REAL,
    skipped INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, step)
) WITHOUT ROWID;

CREATE TABLE epoch_metrics (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE ON UPDATE CASCADE,
    epoch INTEGER NOT NULL,
    step INTEGER NOT NULL,
    train_loss REAL,
    train_acc REAL,
    val_loss REAL,
    val_acc REAL,
    seconds REAL,
    samples_per_s REAL,
    checkpoint TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, epoch)
) WITHOUT ROWID;

CREATE TABLE system_samples (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE ON UPDATE CASCADE,
    time REAL NOT NULL,
    cpu_percent REAL,
    cpu_per_core TEXT,
    ram_used_bytes INTEGER,
    ram_total_bytes INTEGER,
    process_rss_bytes INTEGER,
    process_peak_rss_bytes INTEGER
);
CREATE INDEX system_samples_by_run ON system_samples (run_id, time);

CREATE TABLE gpu_samples (
    sample_id INTEGER NOT NULL REFERENCES system_samples (id) ON DELETE CASCADE,
    gpu_index INTEGER NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    util_percent REAL,
    mem_util_percent REAL,
    mem_used_bytes INTEGER,
    mem_total_bytes INTEGER,
    temperature_c REAL,
    power_w REAL,
    power_limit_w REAL,
    sm_clock_mhz REAL,
    mem_clock_mhz REAL,
    pcie_tx_mbps REAL,
    pcie_rx_mbps REAL,
    throttle_reasons INTEGER,
    PRIMARY KEY (sample_id, gpu_index)
) WITHOUT ROWID;

CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE ON UPDATE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('log', 'advice')),
    level TEXT CHECK (level IN ('debug', 'info', 'warning', 'error')),
    rule TEXT,
    message TEXT NOT NULL,
    step INTEGER,
    time REAL NOT NULL
);
CREATE INDEX events_by_run ON events (run_id, id);

CREATE VIEW runs_overview AS
SELECT r.id, r.name, r.status, datetime(r.started_at, 'unixepoch') AS started,
       r.duration_s, r.model, r.dataset, r.device, r.steps, r.epochs, r.best_val_acc,
       r.final_val_acc, r.final_train_loss, r.mean_samples_per_s,
       (SELECT group_concat(t.tag, ',') FROM tags t WHERE t.run_id = r.id) AS tags, r.notes
FROM runs r;

CREATE VIEW gpu_timeline AS
SELECT s.run_id, s.time, g.*
FROM gpu_samples g JOIN system_samples s ON s.id = g.sample_id;
)sql",
    // 2: the colour a run is drawn in wherever it is compared, "#rrggbb"; '' until first drawn.
    R"sql(
ALTER TABLE runs ADD COLUMN color TEXT NOT NULL DEFAULT '';
)sql",
    // 3: what each epoch's validation got right and wrong (JSON, store/validationreportjson.h);
    // NULL for epochs recorded before.
    R"sql(
ALTER TABLE epoch_metrics ADD COLUMN validation TEXT;
)sql",
    // 4: data-parallel runs: the all-reduce time backward did not hide, and every rank's times
    // of each logged interval (rank 0 gathers them; NULL and no rows for single-process runs).
    R"sql(
ALTER TABLE step_metrics ADD COLUMN allreduce_ms REAL;
CREATE TABLE rank_metrics (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE ON UPDATE CASCADE,
    step INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    step_ms REAL,
    data_wait_ms REAL,
    compute_ms REAL,
    allreduce_ms REAL,
    PRIMARY KEY (run_id, step, rank)
) WITHOUT ROWID;
)sql",
    // 5: layer profiles of a few steps (trainbench-cli profile, the window's Profile view): the
    // report as JSON (events/profilereport.h), by the step it began after.
    R"sql(
CREATE TABLE profiles (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE ON UPDATE CASCADE,
    first_step INTEGER NOT NULL,
    report TEXT NOT NULL
);
CREATE INDEX profiles_by_run ON profiles (run_id, id);
)sql",
    // 6: gradient clipping (gradient_clip_val): the largest global gradient norm of each logged
    // interval and how many of its steps were clipped (NULL and 0 for runs that do not clip).
    R"sql(
ALTER TABLE step_metrics ADD COLUMN grad_norm REAL;
ALTER TABLE step_metrics ADD COLUMN clipped INTEGER NOT NULL DEFAULT 0;
)sql",
    // 7: language models: the text each epoch's model wrote (NULL for other runs' epochs).
    R"sql(
ALTER TABLE epoch_metrics ADD COLUMN sample TEXT;
)sql",
    // 8: losses made of named terms (a detector's box, cls, dfl): each logged interval's means
    // as a JSON object {"box": 1.92, ...} (NULL for one-term losses).
    R"sql(
ALTER TABLE step_metrics ADD COLUMN loss_terms TEXT;
)sql",
    // 9: segmentation runs: the best epoch's mean IoU (their val_acc is the pixel accuracy);
    // NULL for other runs.
    R"sql(
ALTER TABLE runs ADD COLUMN best_miou REAL;
)sql",
};

} // namespace

int currentSchemaVersion() {
    return static_cast<int>(kMigrations.size());
}

int schemaVersion(SqliteDb& db) {
    SqliteStatement& q = db.cached("PRAGMA user_version");
    const int version = q.step("reading the schema version") ? static_cast<int>(q.integer(0)) : 0;
    q.reset();
    return version;
}

bool holdsTables(SqliteDb& db) {
    SqliteStatement& q = db.cached("SELECT count(*) FROM sqlite_master");
    const bool any = q.step("reading the schema") && q.integer(0) > 0;
    q.reset();
    return any;
}

void migrateSchema(SqliteDb& db) {
    const int known = currentSchemaVersion();
    auto checkNotNewer = [&](int version) {
        if (version > known)
            throw StoreError(StoreError::Kind::TooNew, db.path(),
                             db.path() +
                                 ": this run database was written by a newer TrainBench "
                                 "(schema version " +
                                 std::to_string(version) + "; this build knows up to " +
                                 std::to_string(known) +
                                 "). Upgrade TrainBench, or choose another file with --db PATH.");
    };
    int version = schemaVersion(db);
    checkNotNewer(version);
    if (version == known)
        return;
    // Every step in one transaction: the upgrade is all or nothing, and each page it touches
    // (the schema's first above all) is logged once, not once a step.
    SqliteTransaction tx(db, "upgrading the schema");
    // Re-read inside the write transaction: another process may have migrated meanwhile.
    version = schemaVersion(db);
    checkNotNewer(version);
    for (; version < known; ++version)
        db.exec(kMigrations[static_cast<std::size_t>(version)], "upgrading the schema");
    db.exec("PRAGMA user_version = " + std::to_string(known), "upgrading the schema");
    tx.commit();
}

} // namespace tb

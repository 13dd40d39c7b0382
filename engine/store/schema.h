// The run database's schema: ordered migrations keyed by PRAGMA user_version.
// resources/docs/run-store.md documents the tables for people who query them with sqlite3.
#pragma once

namespace tb {

class SqliteDb;

// The schema version this build writes. Version N is reached by applying migrations 1..N.
int currentSchemaVersion();

// The schema version stored in the file (0 for a new, empty database). Throws StoreError.
int schemaVersion(SqliteDb& db);

// True when the database holds tables, views or indexes: a schema version of 0 then means
// someone else's database, not a new one. Throws StoreError.
bool holdsTables(SqliteDb& db);

// Brings the database up to currentSchemaVersion(), one migration per transaction, so an older
// file is upgraded in place and a crash mid-upgrade leaves a consistent version. Throws
// StoreError (kind TooNew) when the file was written by a newer TrainBench.
void migrateSchema(SqliteDb& db);

} // namespace tb

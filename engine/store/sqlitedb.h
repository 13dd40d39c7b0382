// Thin RAII wrappers over the sqlite3 C API for the run store: one connection, prepared
// statements with bound parameters. Every failure becomes a StoreError naming the file.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

struct sqlite3;
struct sqlite3_stmt;

namespace tb {

class SqliteStatement;

// One connection. Not thread-safe, but for stopWaiting(): use one SqliteDb per thread (SQLite
// serialises access across connections and processes itself).
class SqliteDb {
public:
    // Opens (readOnly) or opens-or-creates the file. immutable (with readOnly) promises SQLite
    // that nothing changes the file while it is open (a read-only mount): it then takes no
    // locks and needs no -shm file, and ignores a -wal file. Throws StoreError.
    SqliteDb(std::string path, bool readOnly, std::chrono::milliseconds busyTimeout,
             bool immutable = false);
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    const std::string& path() const { return m_path; }
    sqlite3* handle() const { return m_db; }
    bool readOnly() const;

    // Runs one or more statements without parameters (schema, pragmas). Throws StoreError.
    void exec(const std::string& sql, const std::string& context = {});
    // A cached prepared statement for sql, reset and with its bindings cleared.
    SqliteStatement& cached(const std::string& sql);
    // Throws the StoreError for result code rc, with the connection's message.
    [[noreturn]] void fail(int rc, const std::string& context) const;

    int64_t changes() const;
    int64_t lastInsertRowId() const;

    // From any thread: a wait for another connection's lock, now or later, ends at once (the
    // statement then fails as busy) instead of lasting the busy timeout.
    void stopWaiting() { m_stopWaiting.store(true, std::memory_order_relaxed); }

private:
    // SQLite's busy handler: sleeps and asks to try again until the busy timeout has passed or
    // stopWaiting() was called.
    static int onBusy(void* self, int tries);

    std::string m_path;
    sqlite3* m_db = nullptr;
    std::chrono::milliseconds m_busyTimeout;
    std::chrono::steady_clock::time_point m_busySince;
    std::atomic<bool> m_stopWaiting{false};
    std::unordered_map<std::string, std::unique_ptr<SqliteStatement>> m_cache;
};

// The SQLite library in use ("3.40.1").
std::string sqliteVersion();

// A prepared statement. Parameters are 1-based, as in SQLite.
class SqliteStatement {
public:
    SqliteStatement(SqliteDb& db, std::string_view sql);
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;

    SqliteStatement& bind(int index, int64_t value);
    SqliteStatement& bind(int index, int value) { return bind(index, int64_t{value}); }
    SqliteStatement& bind(int index, uint64_t value) { return bind(index, int64_t(value)); }
    SqliteStatement& bind(int index, double value); // NaN is stored as NULL
    SqliteStatement& bind(int index, std::string_view value);
    SqliteStatement& bind(int index, const std::string& value) {
        return bind(index, std::string_view(value));
    }
    SqliteStatement& bind(int index, const char* value) {
        return bind(index, std::string_view(value));
    }
    SqliteStatement& bindNull(int index);
    template <typename T> SqliteStatement& bind(int index, const std::optional<T>& value) {
        return value ? bind(index, *value) : bindNull(index);
    }
    // Binds values to parameters 1, 2, 3, ...
    template <typename... T> SqliteStatement& bindAll(const T&... values) {
        int i = 0;
        (bind(++i, values), ...);
        return *this;
    }

    // Advances; true when a row is available. Throws StoreError (context names the action).
    bool step(const std::string& context = {});
    // Steps to completion and resets.
    void run(const std::string& context = {});
    void reset();

    bool isNull(int col) const;
    int64_t integer(int col) const;
    double real(int col) const; // NULL reads as NaN
    std::string text(int col) const;
    std::optional<int64_t> optInteger(int col) const;
    std::optional<double> optReal(int col) const;

private:
    SqliteDb& m_db;
    sqlite3_stmt* m_stmt = nullptr;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back when destroyed without commit(). IMMEDIATE takes the
// write lock up front, so waiting for another writer honours the busy timeout.
class SqliteTransaction {
public:
    SqliteTransaction(SqliteDb& db, const std::string& context);
    ~SqliteTransaction();
    SqliteTransaction(const SqliteTransaction&) = delete;
    SqliteTransaction& operator=(const SqliteTransaction&) = delete;
    void commit();

private:
    SqliteDb& m_db;
    std::string m_context;
    bool m_open = true;
};

} // namespace tb

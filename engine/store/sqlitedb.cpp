// The sqlite3 C API behind SqliteDb, SqliteStatement and SqliteTransaction.
#include "store/sqlitedb.h"

#include "store/storeerror.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <thread>

namespace tb {

namespace {

// "file:" URI of a path, with the characters URIs reserve escaped.
std::string fileUri(const std::string& path, const char* query) {
    std::string uri = "file:";
    for (const char c : path) {
        if (c == '%' || c == '?' || c == '#') {
            char escaped[4];
            std::snprintf(escaped, sizeof escaped, "%%%02X", static_cast<unsigned char>(c));
            uri += escaped;
        } else {
            uri += c;
        }
    }
    return uri + "?" + query;
}

} // namespace

std::string sqliteVersion() {
    return sqlite3_libversion();
}

SqliteDb::SqliteDb(std::string path, bool readOnly, std::chrono::milliseconds busyTimeout,
                   bool immutable)
    : m_path(std::move(path)), m_busyTimeout(busyTimeout) {
    const bool uri = readOnly && immutable;
    const int flags =
        (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
        (uri ? SQLITE_OPEN_URI : 0) |
        // One thread uses a connection at a time (each thread opens its own): no lock around
        // every column read.
        SQLITE_OPEN_NOMUTEX;
    const std::string name = uri ? fileUri(m_path, "immutable=1") : m_path;
    const int rc = sqlite3_open_v2(name.c_str(), &m_db, flags, nullptr);
    if (rc != SQLITE_OK) {
        const std::string detail = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        throw StoreError::fromSqlite(m_path, rc, detail, {});
    }
    sqlite3_extended_result_codes(m_db, 1);
    sqlite3_busy_handler(m_db, &SqliteDb::onBusy, this);
}

int SqliteDb::onBusy(void* self, int tries) {
    auto& db = *static_cast<SqliteDb*>(self);
    const auto now = std::chrono::steady_clock::now();
    if (tries == 0) // a new wait for a lock
        db.m_busySince = now;
    const auto left = db.m_busyTimeout - (now - db.m_busySince);
    if (db.m_stopWaiting.load(std::memory_order_relaxed) || left <= decltype(left)::zero())
        return 0;
    // Short naps at first (a writer's transaction usually ends within milliseconds), then 20 ms:
    // SQLite's own busy timeout sleeps alike, and a stopWaiting() is seen within one nap.
    const auto nap = std::chrono::milliseconds(std::min(tries + 1, 20));
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(nap, left));
    return 1;
}

SqliteDb::~SqliteDb() {
    m_cache.clear(); // statements must be finalized before the connection closes
    sqlite3_close_v2(m_db);
}

bool SqliteDb::readOnly() const {
    return sqlite3_db_readonly(m_db, "main") == 1;
}

void SqliteDb::exec(const std::string& sql, const std::string& context) {
    char* message = nullptr;
    const int rc = sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &message);
    if (rc != SQLITE_OK) {
        const std::string detail = message ? message : sqlite3_errstr(rc);
        sqlite3_free(message);
        throw StoreError::fromSqlite(m_path, rc, detail, context);
    }
}

SqliteStatement& SqliteDb::cached(const std::string& sql) {
    auto it = m_cache.find(sql);
    if (it == m_cache.end())
        it = m_cache.emplace(sql, std::make_unique<SqliteStatement>(*this, sql)).first;
    it->second->reset();
    return *it->second;
}

void SqliteDb::fail(int rc, const std::string& context) const {
    throw StoreError::fromSqlite(m_path, rc, sqlite3_errmsg(m_db), context);
}

int64_t SqliteDb::changes() const {
    return sqlite3_changes64(m_db);
}
int64_t SqliteDb::lastInsertRowId() const {
    return sqlite3_last_insert_rowid(m_db);
}

SqliteStatement::SqliteStatement(SqliteDb& db, std::string_view sql) : m_db(db) {
    const int rc = sqlite3_prepare_v3(db.handle(), sql.data(), static_cast<int>(sql.size()),
                                      SQLITE_PREPARE_PERSISTENT, &m_stmt, nullptr);
    if (rc != SQLITE_OK)
        db.fail(rc, "preparing a query");
}

SqliteStatement::~SqliteStatement() {
    sqlite3_finalize(m_stmt);
}

SqliteStatement& SqliteStatement::bind(int index, int64_t value) {
    if (const int rc = sqlite3_bind_int64(m_stmt, index, value); rc != SQLITE_OK)
        m_db.fail(rc, "binding a parameter");
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
    if (std::isnan(value))
        return bindNull(index);
    if (const int rc = sqlite3_bind_double(m_stmt, index, value); rc != SQLITE_OK)
        m_db.fail(rc, "binding a parameter");
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view value) {
    const int rc = sqlite3_bind_text64(m_stmt, index, value.data(), value.size(), SQLITE_TRANSIENT,
                                       SQLITE_UTF8);
    if (rc != SQLITE_OK)
        m_db.fail(rc, "binding a parameter");
    return *this;
}

SqliteStatement& SqliteStatement::bindNull(int index) {
    if (const int rc = sqlite3_bind_null(m_stmt, index); rc != SQLITE_OK)
        m_db.fail(rc, "binding a parameter");
    return *this;
}

bool SqliteStatement::step(const std::string& context) {
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    sqlite3_reset(m_stmt);
    m_db.fail(rc, context);
}

void SqliteStatement::run(const std::string& context) {
    while (step(context)) {
    }
    reset();
}

void SqliteStatement::reset() {
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
}

bool SqliteStatement::isNull(int col) const {
    return sqlite3_column_type(m_stmt, col) == SQLITE_NULL;
}

int64_t SqliteStatement::integer(int col) const {
    return sqlite3_column_int64(m_stmt, col);
}

double SqliteStatement::real(int col) const {
    return isNull(col) ? std::numeric_limits<double>::quiet_NaN()
                       : sqlite3_column_double(m_stmt, col);
}

std::string SqliteStatement::text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, col)))
             : std::string();
}

std::optional<int64_t> SqliteStatement::optInteger(int col) const {
    return isNull(col) ? std::nullopt : std::optional<int64_t>(integer(col));
}

std::optional<double> SqliteStatement::optReal(int col) const {
    return isNull(col) ? std::nullopt : std::optional<double>(real(col));
}

SqliteTransaction::SqliteTransaction(SqliteDb& db, const std::string& context)
    : m_db(db), m_context(context) {
    m_db.cached("BEGIN IMMEDIATE").run(m_context);
}

SqliteTransaction::~SqliteTransaction() {
    if (m_open)
        sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteTransaction::commit() {
    m_db.cached("COMMIT").run(m_context);
    m_open = false;
}

} // namespace tb

// StoreError: why the run database could not be opened, read or written, naming the file and
// saying what the user can do about it.
#pragma once

#include "core/errors.h"

#include <string>

namespace tb {

class StoreError : public Error {
public:
    enum class Kind {
        ReadOnly,    // the file or its folder cannot be written
        Locked,      // another connection held the lock longer than the busy timeout
        Corrupt,     // not a SQLite database, or damaged
        DiskFull,    // SQLITE_FULL: no space left (or the page limit was reached)
        TooNew,      // written by a newer TrainBench (schema version above ours)
        CannotOpen,  // missing folder, a directory path, ...
        NotFound,    // no run with the given id (or the prefix is ambiguous)
        DuplicateId, // a new run under the id of a recorded one
        Other,
    };

    // message is the whole text; use fromSqlite() to build one from a SQLite result code.
    StoreError(Kind kind, std::string path, const std::string& message, int sqliteCode = 0)
        : Error(message), m_kind(kind), m_path(std::move(path)), m_sqliteCode(sqliteCode) {}

    // "<path>: <what went wrong> (sqlite: <detail>). <what to do>" for a SQLite result code
    // (extended codes are fine). context says what we were doing ("opening", "writing run x").
    static StoreError fromSqlite(const std::string& path, int rc, const std::string& detail,
                                 const std::string& context);

    Kind kind() const { return m_kind; }
    const std::string& path() const { return m_path; }
    int sqliteCode() const { return m_sqliteCode; } // 0 when the error did not come from SQLite

private:
    Kind m_kind;
    std::string m_path;
    int m_sqliteCode;
};

} // namespace tb

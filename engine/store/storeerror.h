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
    // problem, when given, is the message without its advice (see problem()).
    StoreError(Kind kind, std::string path, const std::string& message, int sqliteCode = 0,
               std::string problem = {})
        : Error(message), m_kind(kind), m_path(std::move(path)), m_sqliteCode(sqliteCode),
          m_problem(problem.empty() ? message : std::move(problem)) {}

    // "<path>: <what went wrong> (sqlite: <detail>). <what to do>" for a SQLite result code
    // (extended codes are fine). context says what we were doing ("opening", "writing run x").
    static StoreError fromSqlite(const std::string& path, int rc, const std::string& detail,
                                 const std::string& context);

    Kind kind() const { return m_kind; }
    const std::string& path() const { return m_path; }
    int sqliteCode() const { return m_sqliteCode; } // 0 when the error did not come from SQLite
    // What went wrong without the advice on what to do, which names the CLI's options: for a
    // window, which gives its own.
    const std::string& problem() const { return m_problem; }

private:
    Kind m_kind;
    std::string m_path;
    int m_sqliteCode;
    std::string m_problem;
};

} // namespace tb

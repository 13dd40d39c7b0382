// Turns SQLite result codes into StoreErrors a user can act on.
#include "store/storeerror.h"

#include <sqlite3.h>

namespace tb {

namespace {

constexpr const char* kElsewhere = "choose another file with --db PATH, or train without "
                                   "logging with --no-db";

} // namespace

StoreError StoreError::fromSqlite(const std::string& path, int rc, const std::string& detail,
                                  const std::string& context) {
    Kind kind = Kind::Other;
    std::string problem;
    std::string advice;
    switch (rc & 0xff) {
    case SQLITE_READONLY:
        kind = Kind::ReadOnly;
        problem = "the run database is read-only";
        advice = std::string("Make the file and its folder writable, or ") + kElsewhere + ".";
        break;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        kind = Kind::Locked;
        problem = "the run database is locked by another process";
        advice = std::string("Wait for the other TrainBench or sqlite3 session to finish, or ") +
                 kElsewhere + ".";
        break;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
        kind = Kind::Corrupt;
        problem = "the file is not a TrainBench run database or is damaged";
        advice = std::string("Move it aside and TrainBench starts a new one (`sqlite3 FILE "
                             ".recover` may save its runs), or ") +
                 kElsewhere + ".";
        break;
    case SQLITE_FULL:
        kind = Kind::DiskFull;
        problem = "the disk is full (or the database reached its size limit)";
        advice = std::string("Free some space, or ") + kElsewhere + ".";
        break;
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_AUTH:
        kind = Kind::CannotOpen;
        problem = "the run database cannot be opened";
        advice = std::string("Check that the path names a file in a writable folder, or ") +
                 kElsewhere + ".";
        break;
    case SQLITE_IOERR:
        problem = "an I/O error occurred";
        advice = std::string("Check the disk, or ") + kElsewhere + ".";
        break;
    default:
        problem = "a database error occurred";
        advice = std::string("If it persists, ") + kElsewhere + ".";
        break;
    }
    std::string message = path + ": " + problem;
    if (!context.empty())
        message += " while " + context;
    message += " (sqlite: " + (detail.empty() ? std::string(sqlite3_errstr(rc)) : detail) + ")";
    return StoreError(kind, path, message + ". " + advice, rc, message);
}

} // namespace tb

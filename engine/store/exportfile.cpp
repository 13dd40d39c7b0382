// exportToFile(): an export never overwrites the database and never leaves half a file.
#include "store/runexport.h"
#include "store/runstore.h"
#include "store/storeerror.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

#include <fcntl.h>
#include <unistd.h>

namespace tb {

namespace fs = std::filesystem;

namespace {

StoreError exportError(const std::string& path, const std::string& what) {
    return StoreError(StoreError::Kind::CannotOpen, path, path + ": " + what);
}

// Throws when path names the database or a file SQLite keeps beside it.
void requireNotTheStore(const std::string& database, const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
        const std::string file = database + suffix;
        std::error_code ec;
        if (fs::equivalent(path, file, ec) && !ec)
            throw exportError(path, "is the same file as " + file +
                                        ", which holds the runs; an export there would "
                                        "destroy them. Choose another file.");
    }
}

// A new file beside path that no one else is writing (created exclusively).
std::string createTemporaryBeside(const std::string& path) {
    std::random_device os;
    for (int attempt = 0; attempt < 100; ++attempt) {
        char suffix[24];
        std::snprintf(suffix, sizeof suffix, ".tmp-%08x", os());
        const std::string tmp = path + suffix;
        const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            ::close(fd);
            return tmp;
        }
        if (errno != EEXIST)
            throw exportError(path, std::string("cannot create a file beside it (") +
                                        std::strerror(errno) + ")");
    }
    throw exportError(path, "cannot create a temporary file beside it");
}

// Writes the export straight into path, for what is not a regular file (a device such as
// /dev/stdout or /dev/full, a FIFO): there is nothing to replace atomically, and a temporary
// file renamed over a device would replace the device.
void exportInPlace(const std::string& path, const std::function<void(std::ostream&)>& write) {
    std::ofstream out(path, std::ios::binary);
    if (!out)
        throw exportError(path, std::string("cannot be opened for writing (") +
                                    std::strerror(errno) + ")");
    write(out);
    out.close();
    if (!out)
        throw exportError(path, "writing the export failed (a full device?)");
}

} // namespace

void exportToFile(const std::string& path, const std::string& databasePath,
                  const std::function<void(std::ostream&)>& write) {
    requireNotTheStore(databasePath, path);
    std::error_code statusError;
    const fs::file_status st = fs::status(path, statusError);
    if (!statusError && fs::exists(st) && !fs::is_regular_file(st)) {
        if (fs::is_directory(st))
            throw exportError(path, "is a folder; name a file to write the export to");
        exportInPlace(path, write);
        return;
    }
    const std::string tmp = createTemporaryBeside(path);
    try {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        write(out);
        out.close(); // the last buffered bytes are written here: check after it
        if (!out)
            throw exportError(path, "writing " + tmp + " failed (disk full?)");
        std::error_code ec;
        fs::rename(tmp, path, ec);
        if (ec)
            throw exportError(path, "cannot move the export into place (" + ec.message() + ")");
    } catch (...) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw;
    }
}

void exportRunToFile(RunStore& store, const std::string& runId, ExportFormat format,
                     const std::string& path) {
    exportToFile(path, store.path(), [&](std::ostream& out) {
        if (format == ExportFormat::Csv)
            exportRunCsv(store, runId, out);
        else
            exportRunJson(store, runId, out);
    });
}

} // namespace tb

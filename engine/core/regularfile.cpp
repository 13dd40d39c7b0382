// regularFileSize: stat() and a message that says what the path is instead.
#include "core/regularfile.h"

#include "core/errors.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace tb {

namespace {

const char* kindOf(mode_t mode) {
    if (S_ISDIR(mode))
        return "a folder";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

} // namespace

uint64_t regularFileSize(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            throw DatasetError(path, -1, "file does not exist");
        throw DatasetError(path, -1,
                           std::string("cannot examine the file: ") + std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
        throw DatasetError(path, -1,
                           std::string("is ") + kindOf(st.st_mode) + ", expected a regular file");
    return static_cast<uint64_t>(st.st_size);
}

} // namespace tb

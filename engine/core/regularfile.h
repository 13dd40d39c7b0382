// Guards for opening user-named files: only regular files are read, so a FIFO, a device or a
// folder given as a dataset or checkpoint fails with an error naming it, instead of blocking
// in open() or reading forever.
#pragma once

#include <cstdint>
#include <string>

namespace tb {

// The size of `path` when it is a regular file (symbolic links followed). Throws
// DatasetError(path, -1, ...) when it does not exist, cannot be examined, or is a folder, a
// FIFO, a device or a socket.
uint64_t regularFileSize(const std::string& path);

} // namespace tb

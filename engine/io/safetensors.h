// Reading and writing .safetensors files (the format PyTorch's safetensors package loads): an
// 8-byte little-endian header length, a JSON header of name -> dtype, shape, data offsets and
// an optional "__metadata__" string map, then the raw tensor bytes.
#pragma once

#include "core/tensor.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

struct SafetensorsEntry {
    std::string name;
    Tensor tensor; // host tensor
};

// Writes atomically (to a temporary file, then rename), so a crash never leaves half a file.
// Throws Error naming the path on failure.
void writeSafetensors(const std::string& path, const std::vector<SafetensorsEntry>& tensors,
                      const std::map<std::string, std::string>& metadata);

// Where one tensor lies, as the header says: bytes [begin, end) after the header.
struct SafetensorsTensorInfo {
    std::string name;
    DType dtype{};
    Shape shape;
    uint64_t begin = 0, end = 0;
};

struct SafetensorsHeader {
    std::vector<SafetensorsTensorInfo> tensors;
    std::map<std::string, std::string> metadata;
};

// Parses the JSON header and checks every tensor against the dataBytes that follow it, before
// anything is allocated. Throws DatasetError(path, offset, ...) for anything malformed: bad JSON,
// a wrong type, an unknown dtype, a size that does not match or lies outside the data.
SafetensorsHeader parseSafetensorsHeader(std::string_view json, uint64_t dataBytes,
                                         const std::string& path);

struct SafetensorsFile {
    std::map<std::string, Tensor> tensors; // host tensors
    std::map<std::string, std::string> metadata;
};

// Reads a whole file, validating the header against the file size before allocating. Throws
// DatasetError(path, offset, ...) on malformed input.
SafetensorsFile readSafetensors(const std::string& path);
// Only the header's metadata (a checkpoint's config), checked as readSafetensors checks it.
std::map<std::string, std::string> readSafetensorsMetadata(const std::string& path);

} // namespace tb

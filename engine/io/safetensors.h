// Reading and writing .safetensors files (the format PyTorch's safetensors package loads): an
// 8-byte little-endian header length, a JSON header of name -> dtype, shape, data offsets and
// an optional "__metadata__" string map, then the raw tensor bytes.
#pragma once

#include "core/tensor.h"

#include <map>
#include <string>
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

struct SafetensorsFile {
    std::map<std::string, Tensor> tensors; // host tensors
    std::map<std::string, std::string> metadata;
};

// Reads a whole file, validating the header against the file size before allocating. Throws
// DatasetError(path, offset, ...) on malformed input.
SafetensorsFile readSafetensors(const std::string& path);

} // namespace tb

// Reading back an ONNX file TrainBench exported: its model card (from the metadata) and its
// weights (the initializers named like the model's state dict), so `predict` can compute with
// what the file holds. Other producers' models are refused with a message saying so.
#pragma once

#include "core/tensor.h"
#include "export/modelcard.h"

#include <map>
#include <string>

namespace tb {

struct OnnxModelFile {
    ModelCard card;
    std::map<std::string, Tensor> initializers; // host f32 tensors by name
};

// Throws DatasetError(path, ...) for a file that is missing, not ONNX, or not a TrainBench
// export (naming its producer), and for metadata or weights that do not parse.
OnnxModelFile readOnnxModelFile(const std::string& path);

// Whether the path names an ONNX file (by its extension, as runtimes go by).
bool isOnnxPath(const std::string& path);

} // namespace tb

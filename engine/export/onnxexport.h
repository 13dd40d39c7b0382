// ONNX export of a trained model in evaluation mode, for ONNX Runtime, OpenCV's DNN module or
// TensorRT. The file is checked with ONNX's own checker and shape inference before it is
// written, and written whole or not at all.
//
// What it contains: an image model takes "input", float (batch, C, H, W) pixels in [0, 1], and
// normalises them itself with the run's per-channel mean and standard deviation (two nodes at
// the start, also listed in the metadata), so callers feed raw pixels; a language model takes
// "input_ids", int64 (batch, sequence) of at most the block size it trained on. Both give
// "logits": (batch, classes) or (batch, sequence, vocabulary). The metadata holds the class
// names (JSON), the normalisation, the vocabulary and the TrainBench model spec, which is what
// lets `trainbench-cli predict` read the file back.
#pragma once

#include "export/modelcard.h"
#include "nn/graph.h"

#include <string>

namespace tb {

// The lowest opset the exporter writes (Split, Slice and Pad take their sizes as inputs from
// 13 on) and the highest Debian's ONNX knows.
inline constexpr int kOnnxMinOpset = 13;
inline constexpr int kOnnxMaxOpset = 17;

struct OnnxExportOptions {
    int opset = 17;    // kOnnxMinOpset to kOnnxMaxOpset
    int64_t batch = 0; // 0: a dynamic batch dimension; else that fixed size
};

// Metadata keys of an exported model.
inline constexpr const char* kOnnxSpecKey = "trainbench.model_spec";
inline constexpr const char* kOnnxSampleShapeKey = "trainbench.sample_shape";

// Writes `graph` (built from card.spec, weights loaded) to `path`. Throws ConfigError("--opset")
// or ConfigError("--batch") for options out of range, ConfigError("model") naming a layer
// ONNX cannot express, Error naming the path when it cannot be written.
void exportOnnx(Graph& graph, const ModelCard& card, const std::string& path,
                const OnnxExportOptions& options = {});

} // namespace tb

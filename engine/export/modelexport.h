// Exporting a trained model from its checkpoint, as `trainbench-cli export` and the window's
// File > Export Model... both do it, and the summary both show.
#pragma once

#include "export/modelcard.h"
#include "export/onnxexport.h"

#include <string>

namespace tb {

enum class ExportFormat { Onnx, Safetensors };

// "onnx" or "safetensors"; an empty name takes the output file's extension (.safetensors, else
// ONNX). Throws ConfigError("--format") for anything else.
ExportFormat exportFormatOf(const std::string& name, const std::string& outputPath);
const char* toString(ExportFormat format);

struct ExportedModel {
    std::string path;
    ExportFormat format = ExportFormat::Onnx;
    OnnxExportOptions onnx;
    ModelCard card;
    int64_t parameters = 0;
    int64_t bytes = 0;
};

// Loads the checkpoint on the CPU and writes the file. Throws what TrainedModel, exportOnnx and
// writeTorchWeights throw.
ExportedModel exportModel(const std::string& checkpoint, const std::string& outputPath,
                          ExportFormat format, const OnnxExportOptions& onnx = {});

// "exported resnet18 (11,181,642 parameters) to model.onnx (42.7 MiB)", then what goes in and
// comes out (ONNX), or the lines that load it in PyTorch (safetensors).
std::string describe(const ExportedModel& exported);

} // namespace tb

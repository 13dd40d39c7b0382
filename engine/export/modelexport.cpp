#include "export/modelexport.h"

#include "core/errors.h"
#include "core/textformat.h"
#include "export/torchweights.h"
#include "train/trainedmodel.h"

#include <filesystem>
#include <set>

namespace tb {

namespace {

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string inputText(const ModelCard& card) {
    if (card.readsTokenIds())
        return "input_ids int64 (batch, sequence <= " + std::to_string(card.sampleShape[0]) + ")";
    std::string dims;
    for (int64_t d : card.sampleShape.dims())
        dims += ", " + std::to_string(d);
    return "input float (batch" + dims + ")" +
           (card.mean.empty() ? "" : ", pixels in [0, 1], normalised in the graph");
}

// The lines that load the weights in PyTorch: into torchvision's own model where the zoo model
// is one of its, else into the user's module with the same parameter names.
std::string pytorchSnippet(const ExportedModel& e) {
    static const std::set<std::string> torchvision{"resnet18", "resnet34", "resnet50",
                                                   "mobilenet_v2", "vgg11_bn"};
    const std::string load = "model.load_state_dict(load_file(\"" + e.path + "\"))";
    if (!torchvision.count(e.card.model))
        return "load it into a PyTorch module with the same parameter names:\n"
               "  from safetensors.torch import load_file\n  " +
               load;
    return "load it in PyTorch:\n  import torchvision\n  from safetensors.torch import "
           "load_file\n  model = torchvision.models." +
           e.card.model + "(num_classes=" + std::to_string(e.card.classNames.size()) + ")\n  " +
           load + "\n  model.eval()";
}

} // namespace

ExportFormat exportFormatOf(const std::string& name, const std::string& outputPath) {
    if (name == "onnx" || (name.empty() && !endsWith(outputPath, ".safetensors")))
        return ExportFormat::Onnx;
    if (name == "safetensors" || name.empty())
        return ExportFormat::Safetensors;
    throw ConfigError("--format", "'" + name + "' is not one of onnx, safetensors");
}

const char* toString(ExportFormat format) {
    return format == ExportFormat::Onnx ? "onnx" : "safetensors";
}

ExportedModel exportModel(const std::string& checkpoint, const std::string& outputPath,
                          ExportFormat format, const OnnxExportOptions& onnx) {
    TrainedModel model(checkpoint);
    if (format == ExportFormat::Onnx)
        exportOnnx(model.graph(), model.card(), outputPath, onnx);
    else
        writeTorchWeights(model.graph(), model.card(), outputPath);
    ExportedModel out;
    out.path = outputPath;
    out.format = format;
    out.onnx = onnx;
    out.card = model.card();
    out.parameters = model.graph().parameterCount();
    out.bytes = static_cast<int64_t>(std::filesystem::file_size(outputPath));
    return out;
}

std::string describe(const ExportedModel& e) {
    std::string text = "exported " + e.card.model + " (" + formatCount(e.parameters) +
                       " parameters) to " + e.path + " (" +
                       formatBytes(static_cast<uint64_t>(e.bytes)) + ")\n";
    if (e.format == ExportFormat::Onnx)
        return text + "opset " + std::to_string(e.onnx.opset) + "; " + inputText(e.card) +
               " -> logits (batch, " + (e.card.readsTokenIds() ? "sequence, " : "") +
               std::to_string(e.card.classNames.size()) + ")";
    return text + pytorchSnippet(e);
}

} // namespace tb

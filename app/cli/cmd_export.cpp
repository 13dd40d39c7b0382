// trainbench-cli export: a trained model (a run in the store, or a checkpoint file) as an ONNX
// graph for other runtimes, or as PyTorch-named weights.
#include "args.h"
#include "commands.h"
#include "storedcheckpoint.h"

#include "core/errors.h"
#include "export/modelexport.h"
#include "store/runstore.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace tb::cli {

int cmdExport(const Argv& argv) {
    const Args args(argv, specOf("export"));
    if (args.flag("help") || args.positional().size() != 1 || !args.value("out")) {
        std::puts(
            "usage: trainbench-cli export RUN_ID|CHECKPOINT --out FILE [--format "
            "onnx|safetensors]\n"
            "                             [--opset 17] [--batch dynamic|N] [--db PATH] [--no-db]\n"
            "                             [--json]\n\n"
            "Writes a trained model for use outside TrainBench, from a run's newest checkpoint\n"
            "or a checkpoint file. --format onnx (the default, or what --out's extension says):\n"
            "the evaluation-mode graph for ONNX Runtime, OpenCV or TensorRT, checked with ONNX's\n"
            "checker before it is written. An image model takes pixels in [0, 1] and normalises\n"
            "them itself; batch norm is a BatchNormalization node; the class names, the\n"
            "normalisation and a language model's vocabulary are in the metadata. The batch\n"
            "dimension is dynamic unless --batch fixes it. --format safetensors: the weights\n"
            "under the model's own names (torchvision's for resnet18/34/50, mobilenet_v2 and\n"
            "vgg11_bn), for load_state_dict in PyTorch.");
        return args.flag("help") ? 0 : 2;
    }
    const std::string databasePath =
        args.flag("no-db") ? std::string() : args.valueOr("db", defaultDatabasePath());
    const StoredCheckpoint stored = findCheckpoint(args.positional()[0], databasePath, "RUN");
    const std::string out = *args.value("out");
    const ExportFormat format = exportFormatOf(args.valueOr("format", ""), out);
    if (format == ExportFormat::Safetensors && (args.value("opset") || args.value("batch")))
        throw ConfigError(args.value("opset") ? "--opset" : "--batch",
                          "applies to --format onnx; safetensors holds only the weights");
    OnnxExportOptions onnx;
    onnx.opset =
        static_cast<int>(args.intValue("opset", kOnnxMinOpset, kOnnxMaxOpset).value_or(onnx.opset));
    if (args.valueOr("batch", "dynamic") != "dynamic")
        onnx.batch = args.intValue("batch", 1, 1 << 20).value_or(0);

    const ExportedModel exported = exportModel(stored.checkpoint, out, format, onnx);
    if (!args.flag("json")) {
        std::printf("%s\n", describe(exported).c_str());
        return 0;
    }
    nlohmann::json j{{"path", out},
                     {"format", toString(format)},
                     {"checkpoint", stored.checkpoint},
                     {"model", exported.card.model},
                     {"bytes", exported.bytes},
                     {"parameters", exported.parameters},
                     {"classes", exported.card.classNames.size()},
                     {"sample_shape", exported.card.sampleShape.dims()}};
    if (format == ExportFormat::Onnx) {
        j["opset"] = onnx.opset;
        j["batch"] = onnx.batch ? nlohmann::json(onnx.batch) : nlohmann::json("dynamic");
    }
    if (!stored.runId.empty())
        j["run_id"] = stored.runId;
    std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return 0;
}

} // namespace tb::cli

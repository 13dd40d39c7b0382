// trainbench-cli predict: class probabilities for image files from a trained model (a run in
// the store, a checkpoint, or an ONNX file TrainBench exported), the files batched.
#include "args.h"
#include "commands.h"
#include "storedcheckpoint.h"

#include "core/errors.h"
#include "data/imagesample.h"
#include "export/onnxmodelfile.h"
#include "store/runstore.h"
#include "train/predictor.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace tb::cli {

namespace {

nlohmann::json toJson(const std::vector<Prediction>& top) {
    nlohmann::json out = nlohmann::json::array();
    for (const Prediction& p : top)
        out.push_back(
            {{"class", p.className}, {"index", p.classIndex}, {"probability", p.probability}});
    return out;
}

void printRow(const std::string& file, const std::vector<Prediction>& top) {
    std::printf("%s", file.c_str());
    for (const Prediction& p : top)
        std::printf("  %s %.1f%%", p.className.c_str(), 100.0 * p.probability);
    std::printf("\n");
}

} // namespace

int cmdPredict(const Argv& argv) {
    const Args args(argv, specOf("predict"));
    if (args.flag("help") || args.positional().size() < 2) {
        std::puts(
            "usage: trainbench-cli predict RUN_ID|CHECKPOINT|MODEL.onnx IMAGE... [--top 5]\n"
            "                              [--batch 64] [--db PATH] [--no-db] [--json]\n\n"
            "The most probable classes of each image (PNG or JPEG), as the model was trained to\n"
            "see them: a 1-channel model reads greyscale images, a 3-channel one RGB; an image\n"
            "of another size is resized and centre-cropped as ImageFolder validation does. The\n"
            "model is a run's newest checkpoint, a checkpoint file, or an ONNX file `export`\n"
            "wrote (computed from the file's own weights). Files go through the model --batch\n"
            "at a time. A file that cannot be read is reported and skipped; the exit code is\n"
            "then 1. A language model's run continues text with `generate` instead.");
        return args.flag("help") ? 0 : 2;
    }
    const std::string& source = args.positional()[0];
    std::string modelPath = source;
    if (!isOnnxPath(source)) {
        const std::string databasePath =
            args.flag("no-db") ? std::string() : args.valueOr("db", defaultDatabasePath());
        modelPath = findCheckpoint(source, databasePath, "RUN").checkpoint;
    }
    const int top = static_cast<int>(args.intValue("top", 1, 1 << 20).value_or(5));
    const auto batch = static_cast<std::size_t>(args.intValue("batch", 1, 4096).value_or(64));
    Predictor predictor(modelPath);
    const bool imageFolderModel = predictor.card().dataset == "imagefolder";

    const std::vector<std::string> files(args.positional().begin() + 1, args.positional().end());
    nlohmann::json rows = nlohmann::json::array();
    int failed = 0;
    std::vector<std::string> pending;
    std::vector<std::vector<float>> samples;
    const auto flush = [&] {
        if (samples.empty())
            return;
        const auto answers = predictor.predict(samples, top);
        for (std::size_t i = 0; i < pending.size(); ++i) {
            if (args.flag("json"))
                rows.push_back({{"file", pending[i]}, {"top", toJson(answers[i])}});
            else
                printRow(pending[i], answers[i]);
        }
        pending.clear();
        samples.clear();
    };
    for (const std::string& file : files) {
        try {
            samples.push_back(imageFileSample(file, predictor.sampleShape(), imageFolderModel));
            pending.push_back(file);
        } catch (const DatasetError& e) {
            ++failed;
            std::fprintf(stderr, "trainbench-cli predict: error: %s (skipped)\n", e.what());
            if (args.flag("json"))
                rows.push_back({{"file", file}, {"error", e.what()}});
        }
        if (samples.size() == batch)
            flush();
    }
    flush();
    if (args.flag("json"))
        std::printf("%s\n", nlohmann::json{{"model", modelPath},
                                           {"classes", predictor.classNames()},
                                           {"predictions", rows}}
                                .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                                .c_str());
    return failed ? 1 : 0;
}

} // namespace tb::cli

// trainbench-cli predict: class probabilities for image files from a trained model (a run in
// the store, a checkpoint, or an ONNX file TrainBench exported), the files batched.
#include "args.h"
#include "commands.h"
#include "storedcheckpoint.h"

#include "core/errors.h"
#include "data/datasetexport.h"
#include "data/detectioninfo.h"
#include "data/imagecodec.h"
#include "data/imagesample.h"
#include "data/maskcodec.h"
#include "data/segmentationinfo.h"
#include "export/onnxmodelfile.h"
#include "store/runstore.h"
#include "train/detector.h"
#include "train/predictor.h"
#include "train/segmenter.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <set>

namespace tb::cli {

namespace {

nlohmann::json toJson(const std::vector<Prediction>& top) {
    nlohmann::json out = nlohmann::json::array();
    for (const Prediction& p : top)
        out.push_back(
            {{"class", p.className}, {"index", p.classIndex}, {"probability", p.probability}});
    return out;
}

// Decodes `files` (PNG or JPEG) and hands them to `answer` `batch` at a time, with their
// names. A file that cannot be read is reported, gets a row of its own in `rows` with the
// error, and is counted in what this returns.
int inBatches(const std::vector<std::string>& files, std::size_t batch, nlohmann::json& rows,
              const std::function<void(const std::vector<std::string>&,
                                       const std::vector<RgbImage>&)>& answer) {
    int failed = 0;
    std::vector<std::string> pending;
    std::vector<RgbImage> images;
    const auto flush = [&] {
        if (!images.empty())
            answer(pending, images);
        pending.clear();
        images.clear();
    };
    for (const std::string& file : files) {
        try {
            images.push_back(decodeImage(readWholeFile(file), file));
            pending.push_back(file);
        } catch (const DatasetError& e) {
            ++failed;
            std::fprintf(stderr, "trainbench-cli predict: error: %s (skipped)\n", e.what());
            rows.push_back({{"file", file}, {"error", e.what()}});
        }
        if (images.size() == batch)
            flush();
    }
    flush();
    return failed;
}

// A detector's answer: every box of every image, and with --draw the images with their boxes.
int predictBoxes(const Args& args, const std::string& modelPath,
                 const std::vector<std::string>& files) {
    const float conf = static_cast<float>(args.floatValue("conf", 0.0, 1.0).value_or(0.25));
    const float iou = static_cast<float>(args.floatValue("iou", 0.0, 1.0).value_or(0.7));
    const auto batch = static_cast<std::size_t>(args.intValue("batch", 1, 4096).value_or(16));
    const auto draw = args.value("draw");
    if (draw)
        requireEmptyExportFolder(*draw);
    Detector detector(modelPath);
    nlohmann::json rows = nlohmann::json::array();
    int failed = 0;
    const auto answer = [&](const std::vector<std::string>& pending,
                            const std::vector<RgbImage>& images) {
        const auto answers = detector.detect(images, predictionNms(conf, iou));
        for (std::size_t i = 0; i < pending.size(); ++i) {
            nlohmann::json boxes = nlohmann::json::array();
            if (!args.flag("json"))
                std::printf("%s: %zu boxes\n", pending[i].c_str(), answers[i].size());
            LabeledImage drawn{images[i], {}};
            for (const DetectedBox& b : answers[i]) {
                boxes.push_back({{"class", b.className},
                                 {"index", b.classIndex},
                                 {"confidence", b.confidence},
                                 {"box", {b.x1, b.y1, b.x2, b.y2}}});
                if (!args.flag("json"))
                    std::printf("  %-16s %5.1f%%  %7.1f %7.1f %7.1f %7.1f\n", b.className.c_str(),
                                100.0 * b.confidence, b.x1, b.y1, b.x2, b.y2);
                drawn.boxes.push_back({b.classIndex, b.x1, b.y1, b.x2, b.y2});
            }
            if (draw) {
                drawBoxes(drawn, detector.classNames());
                const std::string out =
                    (std::filesystem::path(*draw) /
                     std::filesystem::path(pending[i]).filename().replace_extension(".png"))
                        .string();
                writePng(out, drawn.image.width, drawn.image.height, 3, drawn.image.pixels);
            }
            rows.push_back({{"file", pending[i]}, {"boxes", boxes}});
        }
    };
    failed += inBatches(files, batch, rows, answer);
    if (args.flag("json"))
        std::printf("%s\n", nlohmann::json{{"model", modelPath},
                                           {"classes", detector.classNames()},
                                           {"imgsz", detector.imageSize()},
                                           {"conf", conf},
                                           {"iou", iou},
                                           {"predictions", rows}}
                                .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                                .c_str());
    else if (draw)
        std::printf("images with their boxes written to %s\n", draw->c_str());
    return failed ? 1 : 0;
}

// A segmentation's answer: each image's classes by their share of its pixels, and with --masks
// DIR the masks as class-index PNGs (VOC's palette; with --overlay the images with their masks
// laid over too).
int predictMasks(const Args& args, const std::string& modelPath,
                 const std::vector<std::string>& files) {
    const auto folder = args.value("masks");
    if (args.flag("overlay") && !folder)
        throw ConfigError("overlay", "--overlay writes beside the masks: give --masks DIR too");
    if (folder)
        requireEmptyExportFolder(*folder);
    Segmenter segmenter(modelPath);
    // The run's own batch by default: a batch of large images it trained with fits in memory.
    const auto batch = static_cast<std::size_t>(
        args.intValue("batch", 1, 4096).value_or(segmenter.config().batchSize));
    std::set<std::string> written; // the files' names in the folder, which must not repeat
    const std::vector<std::string>& names = segmenter.classNames();
    nlohmann::json rows = nlohmann::json::array();
    int failed = 0;
    const auto answer = [&](const std::vector<std::string>& pending,
                            const std::vector<RgbImage>& images) {
        const auto answers = segmenter.segment(images);
        for (std::size_t i = 0; i < pending.size(); ++i) {
            const SegmentedPrediction& p = answers[i];
            nlohmann::json shares = nlohmann::json::array();
            if (!args.flag("json"))
                std::printf("%s (%dx%d):", pending[i].c_str(), p.mask.width, p.mask.height);
            for (std::size_t c = 0; c < names.size(); ++c) {
                if (p.classShare[c] <= 0.0)
                    continue;
                shares.push_back({{"class", names[c]},
                                  {"index", c},
                                  {"share", p.classShare[c]},
                                  {"confidence", p.meanConfidence[c]}});
                if (!args.flag("json"))
                    std::printf("  %s %.1f%%", names[c].c_str(), 100.0 * p.classShare[c]);
            }
            if (!args.flag("json"))
                std::printf("\n");
            nlohmann::json row = {{"file", pending[i]}, {"classes", shares}};
            const std::filesystem::path stem = std::filesystem::path(pending[i]).stem();
            if (folder &&
                (!written.insert(stem.string()).second ||
                 (args.flag("overlay") && !written.insert(stem.string() + "_overlay").second))) {
                ++failed;
                const std::string error = "its mask would be " + stem.string() +
                                          ".png, which another image's already is in " + *folder;
                std::fprintf(stderr, "trainbench-cli predict: error: %s: %s (skipped)\n",
                             pending[i].c_str(), error.c_str());
                row["error"] = error;
            } else if (folder) {
                const std::string mask = (std::filesystem::path(*folder) / stem).string() + ".png";
                writeMaskPng(mask, p.mask);
                row["mask"] = mask;
                if (args.flag("overlay")) {
                    RgbImage overlay = images[i];
                    overlayMask(overlay, p.mask, 0.5f);
                    const std::string path =
                        (std::filesystem::path(*folder) / stem).string() + "_overlay.png";
                    writePng(path, overlay.width, overlay.height, 3, overlay.pixels);
                    row["overlay"] = path;
                }
            }
            rows.push_back(std::move(row));
        }
    };
    failed += inBatches(files, batch, rows, answer);
    if (args.flag("json"))
        std::printf("%s\n", nlohmann::json{{"model", modelPath},
                                           {"classes", names},
                                           {"imgsz", segmenter.inputHeight()},
                                           {"predictions", rows}}
                                .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                                .c_str());
    else if (folder)
        std::printf("masks%s written to %s\n", args.flag("overlay") ? " and overlays" : "",
                    folder->c_str());
    return failed ? 1 : 0;
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
            "                              [--batch 64] [--db PATH] [--no-db] [--json]\n"
            "                              [--conf 0.25] [--iou 0.7] [--draw DIR]\n"
            "                              [--masks DIR [--overlay]]\n\n"
            "The most probable classes of each image (PNG or JPEG), as the model was trained to\n"
            "see them: a 1-channel model reads greyscale images, a 3-channel one RGB; an image\n"
            "of another size is resized and centre-cropped as ImageFolder validation does. The\n"
            "model is a run's newest checkpoint, a checkpoint file, or an ONNX file `export`\n"
            "wrote (computed from the file's own weights). Files go through the model --batch\n"
            "at a time. A file that cannot be read is reported and skipped; the exit code is\n"
            "then 1. A language model's run continues text with `generate` instead.\n\n"
            "A detector's run (yolov8n, yolov8s) prints each image's boxes instead: class,\n"
            "confidence and x1 y1 x2 y2 in the image's own pixels (--json: a list per file),\n"
            "keeping those above --conf (default 0.25) after per-class suppression at --iou\n"
            "(0.7), as Ultralytics predicts; --draw DIR writes each image with its boxes.\n\n"
            "A segmentation run (unet, fcn_resnet50, deeplabv3_resnet50) prints each image's\n"
            "classes by their share of its pixels: the image resized whole to the run's input,\n"
            "the scores resized back to the image's own size (bilinear) and the most probable\n"
            "class taken at each pixel. --masks DIR writes each mask as a PNG of class indices\n"
            "in VOC's palette (DIR/NAME.png, what VOC's SegmentationClass holds), and\n"
            "--overlay beside it the image with the mask laid over (DIR/NAME_overlay.png); two\n"
            "images of one name are refused rather than overwrite each other. Its --batch\n"
            "defaults to the run's batch_size.");
        return args.flag("help") ? 0 : 2;
    }
    const std::string& source = args.positional()[0];
    std::string modelPath = source;
    if (!isOnnxPath(source)) {
        const std::string databasePath =
            args.flag("no-db") ? std::string() : args.valueOr("db", defaultDatabasePath());
        modelPath = findCheckpoint(source, databasePath, "RUN").checkpoint;
    }
    const std::vector<std::string> files(args.positional().begin() + 1, args.positional().end());
    if (Detector::holdsDetector(modelPath))
        return predictBoxes(args, modelPath, files);
    if (Segmenter::holdsSegmenter(modelPath))
        return predictMasks(args, modelPath, files);
    const int top = static_cast<int>(args.intValue("top", 1, 1 << 20).value_or(5));
    const auto batch = static_cast<std::size_t>(args.intValue("batch", 1, 4096).value_or(64));
    Predictor predictor(modelPath);
    const bool imageFolderModel = predictor.card().dataset == "imagefolder";

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

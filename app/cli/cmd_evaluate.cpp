// trainbench-cli evaluate: a detector's checkpoint on its validation split, COCO's figures per
// class as Ultralytics' val prints them, and the two COCO files that reproduce them; a
// segmentation model's, torchvision's reference figures (pixel accuracy, IoU per class, mIoU)
// and the confusion matrix over pixels.
#include "args.h"
#include "commands.h"
#include "storedcheckpoint.h"

#include "core/errors.h"
#include "store/runstore.h"
#include "store/validationreportjson.h"
#include "train/detectorevaluation.h"
#include "train/segmenter.h"
#include "train/segmenterevaluation.h"

#include <cmath>
#include <cstdio>
#include <fstream>

namespace tb::cli {

namespace {

void writeJson(const std::string& path, const nlohmann::json& json) {
    std::ofstream out(path, std::ios::binary);
    out << json.dump() << '\n';
    if (!out.flush())
        throw Error("cannot write " + path);
}

nlohmann::json reportJson(const DetectorEvaluation& e) {
    const DetectionReport& r = e.report;
    nlohmann::json classes = nlohmann::json::array();
    for (const DetectionClassResult& c : r.classes)
        classes.push_back({{"class", c.name},
                           {"instances", c.instances},
                           {"precision", c.precision},
                           {"recall", c.recall},
                           {"map50", c.ap50},
                           {"map50_95", c.ap5095}});
    std::vector<std::string> names = r.classNames;
    names.push_back("background");
    return {{"checkpoint", e.checkpoint},
            {"imgsz", e.imageSize},
            {"images", r.images},
            {"instances", r.instances},
            {"precision", r.precision},
            {"recall", r.recall},
            {"map50", r.map50},
            {"map50_95", r.map5095},
            {"classes", classes},
            {"confusion",
             {{"names", names}, {"rows", "true class"}, {"matrix", matrixRows(r.confusion)}}}};
}

// The confusion matrix as Ultralytics draws it, with the background last: counts, rows the
// true class, columns the predicted one (numbered; the rows name them).
void printConfusion(const DetectionReport& r) {
    const std::size_t n = r.classNames.size() + 1;
    std::printf("\nConfusion matrix (conf > 0.25, IoU > 0.45; rows: true class, columns: "
                "predicted; background last)\n%-20s",
                "");
    for (std::size_t p = 0; p < n; ++p)
        std::printf(" %6s", p + 1 == n ? "bg" : std::to_string(p).c_str());
    for (std::size_t t = 0; t < n; ++t) {
        const std::string name =
            t + 1 == n ? "background" : std::to_string(t) + " " + r.classNames[t];
        std::printf("\n%-20.20s", name.c_str());
        for (std::size_t p = 0; p < n; ++p)
            std::printf(" %6lld", static_cast<long long>(r.confusion[t * n + p]));
    }
    std::printf("\n");
}

// A value that may be NaN (a class with no pixels) as JSON null.
nlohmann::json orNull(double v) {
    return std::isnan(v) ? nlohmann::json() : nlohmann::json(v);
}

// A score to three places, "-" for a class with none.
std::string cell(double v) {
    char text[16];
    std::snprintf(text, sizeof text, "%.3f", v);
    return std::isnan(v) ? std::string("-") : std::string(text);
}

int64_t labelledPixels(const SegmentationReport& r, std::size_t c) {
    int64_t sum = 0;
    for (std::size_t p = 0; p < r.classNames.size(); ++p)
        sum += r.confusion[c * r.classNames.size() + p];
    return sum;
}

nlohmann::json segmentationJson(const SegmenterEvaluation& e) {
    const SegmentationReport& r = e.report;
    nlohmann::json classes = nlohmann::json::array(), worst = nlohmann::json::array();
    for (std::size_t c = 0; c < r.classNames.size(); ++c)
        classes.push_back({{"class", r.classNames[c]},
                           {"iou", orNull(r.iou[c])},
                           {"accuracy", orNull(r.classAccuracy[c])},
                           {"pixels", labelledPixels(r, c)}});
    for (const ImageIoU& image : r.worstImages)
        worst.push_back({{"index", image.index}, {"mean_iou", image.meanIoU}});
    return {
        {"checkpoint", e.checkpoint},
        {"imgsz", e.imageSize},
        {"images", r.images},
        {"pixels", r.pixels},
        {"loss", e.loss},
        {"pixel_accuracy", r.pixelAccuracy},
        {"mean_iou", r.meanIoU},
        {"classes", classes},
        {"confusion",
         {{"names", r.classNames}, {"rows", "true class"}, {"matrix", matrixRows(r.confusion)}}},
        {"worst_images", worst}};
}

int evaluateSegmentation(const Args& args, const std::string& checkpoint) {
    for (const char* option : {"coco-gt", "coco-results"})
        if (args.value(option))
            throw ConfigError(option, "COCO's files hold boxes: they are for detectors, and " +
                                          checkpoint + " segments");
    const SegmenterEvaluation e =
        evaluateSegmenter(checkpoint, args.intValue("batch", 1, 4096).value_or(0),
                          static_cast<int>(args.intValue("threads", 0, 4096).value_or(0)));
    if (args.flag("json")) {
        std::puts(segmentationJson(e).dump(2).c_str());
        return 0;
    }
    const SegmentationReport& r = e.report;
    std::printf("%s at %d px: %lld images, %lld pixels counted (ignored ones left out)\n"
                "loss %.4f, pixel accuracy %.2f%%, mean IoU %.4f\n\n%-20s %8s %9s %12s\n",
                checkpoint.c_str(), e.imageSize, static_cast<long long>(r.images),
                static_cast<long long>(r.pixels), e.loss, 100.0 * r.pixelAccuracy, r.meanIoU,
                "Class", "IoU", "Accuracy", "Pixels");
    for (std::size_t c = 0; c < r.classNames.size(); ++c) {
        std::printf("%-20.20s %8s %9s %12lld\n", r.classNames[c].c_str(), cell(r.iou[c]).c_str(),
                    cell(r.classAccuracy[c]).c_str(), static_cast<long long>(labelledPixels(r, c)));
    }
    const std::size_t n = r.classNames.size();
    std::printf("\nConfusion matrix (pixels; rows: true class, columns: predicted)\n%-20s", "");
    for (std::size_t p = 0; p < n; ++p)
        std::printf(" %9zu", p);
    for (std::size_t t = 0; t < n; ++t) {
        std::printf("\n%-20.20s", (std::to_string(t) + " " + r.classNames[t]).c_str());
        for (std::size_t p = 0; p < n; ++p)
            std::printf(" %9lld", static_cast<long long>(r.confusion[t * n + p]));
    }
    std::printf("\n\nWorst images (validation index: mean IoU):");
    for (std::size_t i = 0; i < r.worstImages.size() && i < 10; ++i)
        std::printf("%s %lld: %.3f", i ? "," : "", static_cast<long long>(r.worstImages[i].index),
                    r.worstImages[i].meanIoU);
    std::printf("\n");
    return 0;
}

} // namespace

int cmdEvaluate(const Argv& argv) {
    const Args args(argv, specOf("evaluate"));
    if (args.flag("help") || args.positional().size() != 1) {
        std::puts(
            "usage: trainbench-cli evaluate RUN_ID|CHECKPOINT [--batch 16] [--threads N]\n"
            "                               [--coco-gt FILE.json] [--coco-results FILE.json]\n"
            "                               [--db PATH] [--no-db] [--json]\n\n"
            "Measures a detector (a run's newest checkpoint, or a checkpoint file) on its run's\n"
            "validation split as each epoch's validation does: NMS at conf 0.001 and IoU 0.7,\n"
            "then COCO's evaluation (mAP50, mAP50-95 over IoU 0.50:0.05:0.95, 101-point\n"
            "precision, crowd regions ignored), precision and recall where F1 is best. --coco-gt\n"
            "writes the split's boxes as COCO instances JSON and --coco-results the detections\n"
            "in COCO's results format, both in the network's input pixels (images letterboxed\n"
            "to data.imgsz; image ids from 1, category ids class + 1), so that pycocotools or\n"
            "any COCO evaluator recomputes the same mAP.\n\n"
            "A segmentation run (unet, fcn_resnet50, deeplabv3_resnet50) is measured as\n"
            "torchvision's reference scores it: a confusion matrix over every validation pixel\n"
            "(pixels labelled 255 left out), pixel accuracy, each class's IoU and accuracy,\n"
            "their mean IoU, and the worst images by their own mean IoU; --json gives the\n"
            "matrix too. Its --batch defaults to the run's batch_size.");
        return args.flag("help") ? 0 : 2;
    }
    const std::string databasePath =
        args.flag("no-db") ? std::string() : args.valueOr("db", defaultDatabasePath());
    const std::string checkpoint =
        findCheckpoint(args.positional()[0], databasePath, "RUN").checkpoint;
    if (Segmenter::holdsSegmenter(checkpoint))
        return evaluateSegmentation(args, checkpoint);
    const DetectorEvaluation e =
        evaluateDetector(checkpoint, args.intValue("batch", 1, 4096).value_or(16),
                         static_cast<int>(args.intValue("threads", 0, 4096).value_or(0)));
    if (const auto gt = args.value("coco-gt"))
        writeJson(*gt, cocoGroundTruth(e));
    if (const auto results = args.value("coco-results"))
        writeJson(*results, cocoResults(e));
    if (args.flag("json")) {
        std::puts(reportJson(e).dump(2).c_str());
        return 0;
    }
    const DetectionReport& r = e.report;
    std::printf("%s at %d px\n\n%-20s %8s %10s %8s %8s %8s %9s\n", checkpoint.c_str(), e.imageSize,
                "Class", "Images", "Instances", "P", "R", "mAP50", "mAP50-95");
    std::printf("%-20s %8lld %10lld %8.3f %8.3f %8.3f %9.3f\n", "all",
                static_cast<long long>(r.images), static_cast<long long>(r.instances), r.precision,
                r.recall, r.map50, r.map5095);
    for (const DetectionClassResult& c : r.classes)
        std::printf("%-20s %8s %10lld %8.3f %8.3f %8.3f %9.3f\n", c.name.c_str(), "",
                    static_cast<long long>(c.instances), c.precision, c.recall, c.ap50, c.ap5095);
    if (r.confusion.size() == (r.classNames.size() + 1) * (r.classNames.size() + 1))
        printConfusion(r);
    for (const char* option : {"coco-gt", "coco-results"})
        if (const auto path = args.value(option))
            std::printf("\n--%s written to %s", option, path->c_str());
    if (args.value("coco-gt") || args.value("coco-results"))
        std::printf("\n");
    return 0;
}

} // namespace tb::cli

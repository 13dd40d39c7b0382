// trainbench-cli datasets, dataset-info, dataset-export and bench-data: what datasets this
// machine has, what one of them holds (sizes, classes, histogram, channel statistics, a PNG
// grid), its images written out as files, and how fast the DataLoader alone delivers batches.
#include "args.h"
#include "commands.h"

#include "backend/backend.h"
#include "core/errors.h"
#include "core/textformat.h"
#include "data/dataloader.h"
#include "data/datasetexport.h"
#include "data/datasetinfo.h"
#include "data/datasets.h"
#include "train/runconfig.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>

#include <sys/resource.h>

namespace tb::cli {

namespace {

// --dataset NAME plus any --set data.*=VALUE, parsed and checked by RunConfig's schema.
DataConfig dataConfigFrom(const Args& args) {
    RunConfig config;
    if (const auto name = args.value("dataset"))
        config.set("dataset", *name);
    for (const std::string& kv : args.values("set")) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw ConfigError("--set", "'" + kv + "' must look like key=value");
        const std::string key = kv.substr(0, eq);
        const ConfigField* field = findConfigField(key);
        if (field && field->group != ConfigGroup::Data)
            throw ConfigError(key, "is not a data key; this command takes dataset and data.*");
        config.set(key, kv.substr(eq + 1));
    }
    config.validate();
    return config.data;
}

double peakRssMb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;
}

std::string joinDims(const Shape& s) {
    return s.toString();
}

} // namespace

int cmdDatasets(const Argv& argv) {
    const Args args(argv, specOf("datasets"));
    if (args.flag("help")) {
        std::puts("usage: trainbench-cli datasets [--json]\n\nLists the dataset names and whether "
                  "each is found on this machine.");
        return 0;
    }
    const std::vector<DatasetAvailability> list = datasetAvailability();
    if (args.flag("json")) {
        nlohmann::json out = nlohmann::json::array();
        for (const DatasetAvailability& a : list)
            out.push_back(
                {{"name", a.name}, {"found", a.found}, {"location", a.location}, {"note", a.note}});
        std::puts(out.dump(2).c_str());
        return 0;
    }
    std::printf("%-14s %-20s %s\n", "DATASET", "STATUS", "LOCATION");
    for (const DatasetAvailability& a : list)
        std::printf("%-14s %-20s %s\n", a.name.c_str(), a.note.c_str(), a.location.c_str());
    return 0;
}

namespace {

// A detection set's counts, split by split, and its classes.
void printDetectionInfo(const DatasetInfo& info) {
    const auto& d = *info.detection;
    std::printf("input        %d x %d px (data.imgsz; box sizes below are measured there)\n\n",
                d.inputSize, d.inputSize);
    std::printf("%-28s %12s %12s\n", "", "TRAIN", "VALIDATION");
    auto row = [](const char* what, double a, double b, const char* format) {
        std::printf("%-28s ", what);
        std::printf(format, a);
        std::printf(" ");
        std::printf(format, b);
        std::printf("\n");
    };
    const DetectionSplitStats& t = d.train;
    const DetectionSplitStats& v = d.validation;
    auto perImage = [](const DetectionSplitStats& s) {
        return s.images ? static_cast<double>(s.boxes) / static_cast<double>(s.images) : 0.0;
    };
    row("images", t.images, v.images, "%12.0f");
    row("boxes", t.boxes, v.boxes, "%12.0f");
    row("boxes per image", perImage(t), perImage(v), "%12.2f");
    row("most boxes in an image", t.mostBoxes, v.mostBoxes, "%12.0f");
    row("background images", t.background, v.background, "%12.0f");
    row("crowd regions (not trained)", t.crowd, v.crowd, "%12.0f");
    row("small boxes (< 32^2 px)", t.small, v.small, "%12.0f");
    row("medium (< 96^2 px)", t.medium, v.medium, "%12.0f");
    row("large", t.large, v.large, "%12.0f");
    std::printf("\n%-4s %-20s %10s %10s %10s %10s\n", "ID", "CLASS", "BOXES", "IMAGES", "VAL BOXES",
                "VAL IMAGES");
    for (std::size_t k = 0; k < info.classNames.size(); ++k)
        std::printf("%-4zu %-20s %10lld %10lld %10lld %10lld\n", k, info.classNames[k].c_str(),
                    static_cast<long long>(t.boxesPerClass[k]),
                    static_cast<long long>(t.imagesPerClass[k]),
                    static_cast<long long>(v.boxesPerClass[k]),
                    static_cast<long long>(v.imagesPerClass[k]));
    if (!d.warnings.empty()) {
        std::printf("\n%zu label problems skipped:\n", d.warnings.size());
        for (std::size_t i = 0; i < d.warnings.size() && i < 20; ++i)
            std::printf("  %s\n", d.warnings[i].c_str());
        if (d.warnings.size() > 20)
            std::printf("  ... and %zu more (--json lists them all)\n", d.warnings.size() - 20);
    }
}

// A segmentation set's pixels: each class's share and the images it appears in, split by split.
void printSegmentationInfo(const DatasetInfo& info) {
    const auto& s = *info.segmentation;
    const auto share = [](int64_t part, int64_t whole) {
        return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
    };
    const auto all = [](const SegmentationSplitStats& st) { return st.pixels + st.ignored; };
    std::printf("input        %d x %d px (data.image_size)\n", s.inputSize, s.inputSize);
    std::printf("ignored      %.1f%% of the train pixels, %.1f%% of the validation's (255: "
                "outlines, unlabelled)\n",
                share(s.train.ignored, all(s.train)),
                share(s.validation.ignored, all(s.validation)));
    std::printf("\n%-4s %-20s %10s %10s %10s %10s\n", "ID", "CLASS", "PIXELS", "IMAGES",
                "VAL PIXELS", "VAL IMAGES");
    for (std::size_t k = 0; k < info.classNames.size(); ++k)
        std::printf("%-4zu %-20s %9.2f%% %10lld %9.2f%% %10lld\n", k, info.classNames[k].c_str(),
                    share(s.train.pixelsPerClass[k], s.train.pixels),
                    static_cast<long long>(s.train.imagesPerClass[k]),
                    share(s.validation.pixelsPerClass[k], s.validation.pixels),
                    static_cast<long long>(s.validation.imagesPerClass[k]));
    for (const std::string& w : s.warnings)
        std::printf("warning: %s\n", w.c_str());
}

} // namespace

int cmdDatasetInfo(const Argv& argv) {
    const Args args(argv, specOf("dataset-info"));
    if (args.flag("help") || !args.value("dataset")) {
        std::puts(
            "usage: trainbench-cli dataset-info --dataset NAME [--set data.KEY=VALUE ...] "
            "[--grid out.png] [--augmented] [--json]\n\n"
            "--grid (or --out) writes a PNG of training samples; a detection set's with their "
            "boxes and\nclass names, a segmentation set's with their masks and a legend, and "
            "with --augmented\nas training sees them (mosaic, scale and shift, HSV, flip; "
            "random scale, flip and crop;\nthe samples of the first epoch).");
        return args.flag("help") ? 0 : 2;
    }
    const DataConfig config = dataConfigFrom(args);
    const DatasetInfo info = describeDataset(config);
    const auto grid = args.value("grid") ? args.value("grid") : args.value("out");
    if (args.flag("augmented") && !grid)
        throw ConfigError("--augmented", "shows samples in the grid: add --grid FILE.png");
    if (grid)
        writeSampleGrid(config, *grid, 10, 8, 0, args.flag("augmented"));
    if (args.flag("json")) {
        nlohmann::json out = datasetInfoToJson(info);
        if (grid)
            out["grid"] = *grid;
        std::puts(out.dump(2).c_str());
        return 0;
    }
    std::printf("dataset      %s\n", info.name.c_str());
    std::printf("train        %lld samples (%s)\n", static_cast<long long>(info.trainSize),
                info.trainDescription.c_str());
    std::printf("validation   %lld samples (%s)\n", static_cast<long long>(info.validationSize),
                info.validationDescription.c_str());
    std::printf("sample shape %s\n", joinDims(info.sampleShape).c_str());
    if (info.detection) {
        printDetectionInfo(info);
        if (grid)
            std::printf("\nsample grid written to %s\n", grid->c_str());
        return 0;
    }
    std::string mean, sd;
    for (std::size_t c = 0; c < info.stats.mean.size(); ++c) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s%.4f", c ? " " : "", info.stats.mean[c]);
        mean += buf;
        std::snprintf(buf, sizeof buf, "%s%.4f", c ? " " : "", info.stats.stdDev[c]);
        sd += buf;
    }
    std::printf("mean         %s\nstd          %s\n", mean.c_str(), sd.c_str());
    if (info.segmentation) {
        printSegmentationInfo(info);
        if (grid)
            std::printf("\nsample grid written to %s\n", grid->c_str());
        return 0;
    }
    std::printf("\n%-4s %-20s %10s %10s\n", "ID", "CLASS", "TRAIN", "VALIDATION");
    for (std::size_t k = 0; k < info.classNames.size(); ++k)
        std::printf("%-4zu %-20s %10lld %10lld\n", k, info.classNames[k].c_str(),
                    static_cast<long long>(info.trainHistogram[k]),
                    static_cast<long long>(info.validationHistogram[k]));
    if (grid)
        std::printf("\nsample grid written to %s\n", grid->c_str());
    return 0;
}

int cmdBenchData(const Argv& argv) {
    const Args args(argv, specOf("bench-data"));
    if (args.flag("help")) {
        std::puts("usage: trainbench-cli bench-data [--dataset fashion-mnist] [--batch 64] "
                  "[--workers 0] [--prefetch 2] [--augment] [--pin-memory] [--batches N] "
                  "[--set data.KEY=VALUE ...] [--json]\n\nMeasures loader-only samples/s on "
                  "the train split (shuffled, normalised).");
        return 0;
    }
    DataConfig config = dataConfigFrom(args);
    if (args.flag("augment"))
        config.augment = true;
    LoaderOptions o;
    o.batchSize = args.intValue("batch", 1).value_or(64);
    o.numWorkers = static_cast<int>(args.intValue("workers", 0).value_or(0));
    o.prefetchFactor = static_cast<int>(args.intValue("prefetch", 1).value_or(2));
    o.pinMemory = args.flag("pin-memory");
    o.seed = static_cast<uint64_t>(args.intValue("seed", 0).value_or(0));
    const auto openStart = std::chrono::steady_clock::now();
    const DatasetSplits splits = openDatasets(config, o.seed);
    const double openMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - openStart)
            .count();
    std::unique_ptr<Backend> backend = createCpuBackend(1);
    DataLoader loader(splits.train, o, *backend);
    const int64_t batches = args.intValue("batches", 1).value_or(loader.batchesPerEpoch());
    constexpr int64_t kWarmup = 5;
    int64_t epoch = 0;
    loader.startEpoch(epoch);
    auto nextBatch = [&]() {
        std::optional<Batch> b = loader.next();
        if (!b) {
            loader.startEpoch(++epoch);
            b = loader.next();
        }
        if (!b)
            throw Error("the dataset yields no batches");
        return std::move(*b);
    };
    for (int64_t i = 0; i < kWarmup; ++i)
        nextBatch();
    int64_t samples = 0;
    double waitMs = 0, produceMs = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < batches; ++i) {
        const Batch b = nextBatch();
        samples += b.labels.numel();
        waitMs += b.waitMs;
        produceMs += b.produceMs;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    loader.stop();
    const double rate = static_cast<double>(samples) / seconds;
    const nlohmann::json out = {{"dataset", config.name},
                                {"batch_size", o.batchSize},
                                {"num_workers", o.numWorkers},
                                {"prefetch_factor", o.prefetchFactor},
                                {"augment", config.augment},
                                {"pinned", loader.pinned()},
                                {"batches", batches},
                                {"samples", samples},
                                {"seconds", seconds},
                                {"samples_per_s", rate},
                                {"mean_wait_ms", waitMs / static_cast<double>(batches)},
                                {"mean_produce_ms", produceMs / static_cast<double>(batches)},
                                {"open_ms", openMs},
                                {"peak_rss_mb", peakRssMb()}};
    if (args.flag("json")) {
        std::puts(out.dump(2).c_str());
        return 0;
    }
    std::printf("%s: batch %lld, %d workers%s: %.0f samples/s (%lld batches in %.2f s)\n"
                "mean wait %.3f ms, mean produce %.3f ms per batch; open %.0f ms; peak RSS "
                "%.0f MB\n",
                config.name.c_str(), static_cast<long long>(o.batchSize), o.numWorkers,
                config.augment ? ", augment" : "", rate, static_cast<long long>(batches), seconds,
                waitMs / static_cast<double>(batches), produceMs / static_cast<double>(batches),
                openMs, peakRssMb());
    return 0;
}

namespace {

// A detection or segmentation set written with its labels: both splits, in `format`'s layout,
// then what was written (--json: the same as an object) and how to train on it.
int exportLabelledSet(const Args& args, const DataConfig& data) {
    const bool detection = isDetectionDataset(data.name) || args.valueOr("format", "") == "yolo" ||
                           args.valueOr("format", "") == "coco";
    const std::string format = args.valueOr("format", detection ? "yolo" : "voc");
    const std::string folder = args.positional()[1];
    const int64_t limit = args.intValue("limit", 1).value_or(0);
    const auto start = std::chrono::steady_clock::now();
    nlohmann::json written;
    std::string what, layout;
    if (detection) {
        const DetectionExportResult r = exportDetection(data, folder, format, limit);
        written = {{"images", r.images}, {"boxes", r.boxes}, {"bytes", r.bytes}};
        what = formatCount(r.images) + " images with " + formatCount(r.boxes) + " boxes (" +
               formatBytes(r.bytes) + ")";
        layout = format == "yolo" ? "Ultralytics YOLO's layout" : "COCO's layout";
    } else {
        const SegmentationExportResult r = exportSegmentation(data, folder, format, limit);
        written = {{"images", r.images}, {"bytes", r.bytes}};
        what = formatCount(r.images) + " images with their masks (" + formatBytes(r.bytes) + ")";
        layout = format == "voc" ? "Pascal VOC's layout" : "images/ and masks/ folders";
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (args.flag("json")) {
        nlohmann::json out{{"dataset", data.name}, {"folder", folder}, {"format", format}};
        out.update(written);
        out["seconds"] = seconds;
        std::puts(out.dump(2).c_str());
        return 0;
    }
    std::printf("wrote %s in %s to %s in %s\n", what.c_str(), layout.c_str(), folder.c_str(),
                formatDuration(seconds).c_str());
    std::printf("train on it: trainbench-cli train --set dataset=%s --set data.root=%s\n",
                format.c_str(), folder.c_str());
    return 0;
}

} // namespace

int cmdDatasetExport(const Argv& argv) {
    const Args args(argv, specOf("dataset-export"));
    if (args.flag("help") || args.positional().size() != 2) {
        std::puts(
            "usage: trainbench-cli dataset-export NAME DIR [--format "
            "jpeg|png|yolo|coco|voc|masks]\n"
            "         [--size PX]"
            "         [--quality 1-100] [--limit N] [--set data.KEY=VALUE ...] [--json]\n\n"
            "Writes the train split of dataset NAME into DIR (new or empty) as an ImageFolder:\n"
            "one folder per class, the images resized to PX x PX (default: their own size).\n"
            "Train on it with --set dataset=imagefolder --set data.root=DIR: every sample is\n"
            "then a file to decode, as a folder of photos is, and num_workers shows its effect.\n\n"
            "A detection set (shapes-detect, yolo, coco) exports both splits with their boxes:\n"
            "--format yolo writes Ultralytics' layout (data.yaml, images/, labels/), --format "
            "coco\n"
            "COCO's instances JSON beside images/; --limit N takes the first N of each split.\n"
            "Read them back with --set dataset=yolo (or coco) --set data.root=DIR.\n\n"
            "A segmentation set (shapes-seg, voc, masks) exports both splits with their masks\n"
            "(palette PNGs in VOC's colours): --format voc writes VOC's layout (JPEGImages/,\n"
            "SegmentationClass/, ImageSets/Segmentation/), --format masks images/ and masks/.\n"
            "Read them back with --set dataset=voc (or masks) --set data.root=DIR.");
        return args.flag("help") ? 0 : 2;
    }
    Argv dataArgs{"--dataset", args.positional()[0]};
    for (const std::string& kv : args.values("set"))
        dataArgs.insert(dataArgs.end(), {"--set", kv});
    const DataConfig data = dataConfigFrom(Args(dataArgs, specOf("dataset-info")));
    const std::string format = args.valueOr("format", "");
    if (isDetectionDataset(data.name) || isSegmentationDataset(data.name) || format == "yolo" ||
        format == "coco" || format == "voc" || format == "masks")
        return exportLabelledSet(args, data);
    DatasetExportOptions options;
    options.format = args.valueOr("format", "jpeg");
    options.size = static_cast<int>(args.intValue("size", 1, 100000).value_or(0));
    options.quality = static_cast<int>(args.intValue("quality", 1, 100).value_or(90));
    options.limit = args.intValue("limit", 1).value_or(0);
    const std::string folder = args.positional()[1];
    const auto start = std::chrono::steady_clock::now();
    const DatasetExportResult r = exportImageFolder(data, folder, options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (args.flag("json")) {
        std::puts(nlohmann::json{{"dataset", data.name},
                                 {"folder", folder},
                                 {"format", options.format},
                                 {"images", r.images},
                                 {"classes", r.classes},
                                 {"size", r.size},
                                 {"bytes", r.bytes},
                                 {"seconds", seconds}}
                      .dump(2)
                      .c_str());
        return 0;
    }
    std::printf("wrote %s %s images of %dx%d px (%s) in %d class folders to %s in %s\n",
                formatCount(r.images).c_str(), options.format == "jpeg" ? "JPEG" : "PNG", r.size,
                r.size, formatBytes(r.bytes).c_str(), r.classes, folder.c_str(),
                formatDuration(seconds).c_str());
    std::printf("train on it: trainbench-cli train --set dataset=imagefolder --set data.root=%s "
                "--set data.image_size=%d\n",
                folder.c_str(), r.size);
    return 0;
}

} // namespace tb::cli

// Availability checks, dataset descriptions and sample grids (written with libpng).
#include "data/datasetinfo.h"

#include "core/errors.h"
#include "data/datasets.h"
#include "data/imagecodec.h"
#include "data/rawsplits.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

namespace tb {

namespace fs = std::filesystem;

namespace {

bool anyExists(const std::vector<fs::path>& paths) {
    std::error_code ec;
    return std::any_of(paths.begin(), paths.end(),
                       [&](const fs::path& p) { return fs::exists(p, ec); });
}

std::vector<int64_t> histogram(const Dataset& ds) {
    std::vector<int64_t> h(static_cast<std::size_t>(ds.numClasses()));
    for (int64_t i = 0; i < ds.size(); ++i) {
        const int32_t l = ds.label(i);
        if (l >= 0 && l < ds.numClasses())
            ++h[static_cast<std::size_t>(l)];
    }
    return h;
}

uint8_t toByte(float v) {
    return static_cast<uint8_t>(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f);
}

// Distinct colours for up to ten classes (then they repeat).
const uint8_t kPalette[10][3] = {{31, 119, 180},  {255, 127, 14}, {44, 160, 44},   {214, 39, 40},
                                 {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127},
                                 {188, 189, 34},  {23, 190, 207}};

void writeScatter(const Dataset& ds, const std::string& path) {
    constexpr int kSide = 320;
    std::vector<uint8_t> px(kSide * kSide * 3, 255);
    const int64_t n = std::min<int64_t>(ds.size(), 4000);
    const int64_t dims = ds.sampleShape().numel();
    std::vector<float> x(static_cast<std::size_t>(dims));
    std::vector<std::pair<float, float>> points;
    float lo[2] = {1e30f, 1e30f}, hi[2] = {-1e30f, -1e30f};
    for (int64_t i = 0; i < n; ++i) {
        ds.get(i * ds.size() / n, x.data(), 0);
        const float a = x[0], b = dims > 1 ? x[1] : 0.0f;
        points.emplace_back(a, b);
        lo[0] = std::min(lo[0], a), hi[0] = std::max(hi[0], a);
        lo[1] = std::min(lo[1], b), hi[1] = std::max(hi[1], b);
    }
    for (int64_t i = 0; i < n; ++i) {
        const auto [a, b] = points[static_cast<std::size_t>(i)];
        const int u =
            static_cast<int>((a - lo[0]) / std::max(hi[0] - lo[0], 1e-6f) * (kSide - 9)) + 4;
        const int v = kSide - 5 -
                      static_cast<int>((b - lo[1]) / std::max(hi[1] - lo[1], 1e-6f) * (kSide - 9));
        const uint8_t* c = kPalette[ds.label(i * ds.size() / n) % 10];
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx)
                std::copy_n(c, 3, px.data() + ((v + dy) * kSide + (u + dx)) * 3);
    }
    writePng(path, kSide, kSide, 3, px);
}

} // namespace

std::vector<DatasetAvailability> datasetAvailability() {
    std::vector<DatasetAvailability> out;
    for (const std::string& name : datasetNames()) {
        DatasetAvailability a;
        a.name = name;
        const fs::path root = defaultDatasetRoot(name);
        if (name == "fashion-mnist" || name == "mnist") {
            a.location = root.string();
            a.found =
                anyExists({root / "train-images-idx3-ubyte.gz", root / "train-images-idx3-ubyte"});
        } else if (name == "cifar10") {
            a.location = root.string();
            a.found = anyExists(
                {root / "data_batch_1.bin", root / "cifar-10-batches-bin" / "data_batch_1.bin"});
        } else if (name == "cifar100") {
            a.location = root.string();
            a.found = anyExists({root / "train.bin", root / "cifar-100-binary" / "train.bin"});
        } else if (name == "text") {
            a.location = root.string();
            a.found = fs::is_directory(root);
            a.note =
                a.found ? "found (or data.root)" : "missing: apt install fortunes, or data.root";
        } else if (name == "imagefolder" || name == "csv" || name == "yolo" || name == "coco") {
            a.note = "needs data.root";
        } else {
            a.found = true;
            a.location = "built in";
            a.note = "built in (no files)";
        }
        if (a.note.empty())
            a.note = a.found ? "found" : "missing";
        out.push_back(std::move(a));
    }
    return out;
}

DatasetInfo describeDataset(const DataConfig& config, uint64_t seed) {
    const RawSplits raw = openRawSplits(config, seed);
    DatasetInfo info;
    info.name = config.name;
    info.trainDescription = raw.train->description();
    info.validationDescription = raw.validation->description();
    info.trainSize = raw.train->size();
    info.validationSize = raw.validation->size();
    info.sampleShape = raw.train->sampleShape();
    info.classNames = raw.train->classNames();
    info.trainHistogram = histogram(*raw.train);
    info.validationHistogram = histogram(*raw.validation);
    if (const auto* train = dynamic_cast<const DetectionDataset*>(raw.train.get())) {
        const auto& val = dynamic_cast<const DetectionDataset&>(*raw.validation);
        info.detection = DatasetInfo::Detection{
            train->imageSize(), detectionStats(train->source(), train->imageSize()),
            detectionStats(val.source(), train->imageSize()), raw.warnings};
        info.trainHistogram = info.detection->train.boxesPerClass;
        info.validationHistogram = info.detection->validation.boxesPerClass;
        return info; // pixels in [0, 1] as the detector takes them: no statistics to show
    }
    if (const auto* train = dynamic_cast<const SegmentationDataset*>(raw.train.get())) {
        const auto& val = dynamic_cast<const SegmentationDataset&>(*raw.validation);
        info.segmentation =
            DatasetInfo::Segmentation{train->imageSize(), segmentationStats(train->source()),
                                      segmentationStats(val.source()), raw.warnings};
        info.trainHistogram = info.segmentation->train.imagesPerClass;
        info.validationHistogram = info.segmentation->validation.imagesPerClass;
    }
    if (config.name != "text") // token ids are not measurements: no statistics to show
        info.stats = cachedChannelStats(raw.statsSource ? *raw.statsSource : *raw.train,
                                        raw.statsKey, raw.statsSamples);
    return info;
}

nlohmann::json datasetInfoToJson(const DatasetInfo& info) {
    nlohmann::json classes = nlohmann::json::array();
    for (std::size_t k = 0; k < info.classNames.size(); ++k)
        classes.push_back({{"id", k},
                           {"name", info.classNames[k]},
                           {"train", info.trainHistogram[k]},
                           {"validation", info.validationHistogram[k]}});
    nlohmann::json out = {
        {"name", info.name},
        {"train", {{"samples", info.trainSize}, {"description", info.trainDescription}}},
        {"validation",
         {{"samples", info.validationSize}, {"description", info.validationDescription}}},
        {"sample_shape", info.sampleShape.dims()},
        {"classes", classes},
        {"mean", info.stats.mean},
        {"std", info.stats.stdDev}};
    if (info.detection) {
        out["detection"] = {
            {"imgsz", info.detection->inputSize},
            {"train", detectionStatsToJson(info.detection->train, info.classNames)},
            {"validation", detectionStatsToJson(info.detection->validation, info.classNames)},
            {"warnings", info.detection->warnings}};
    }
    if (info.segmentation) {
        out["segmentation"] = {
            {"image_size", info.segmentation->inputSize},
            {"train", segmentationStatsToJson(info.segmentation->train, info.classNames)},
            {"validation", segmentationStatsToJson(info.segmentation->validation, info.classNames)},
            {"warnings", info.segmentation->warnings}};
    }
    return out;
}

void writeSampleGrid(const DataConfig& config, const std::string& path, int columns, int rows,
                     uint64_t seed, bool augmented) {
    if (config.name == "text")
        throw ConfigError("--grid", "text samples are windows of characters, not images");
    const RawSplits raw = openRawSplits(config, seed);
    const Dataset& ds = *raw.train;
    if (const auto* detection = dynamic_cast<const DetectionDataset*>(&ds)) {
        writeDetectionGrid(*detection, path, std::min(columns, 6), std::min(rows, 4),
                           std::min(detection->imageSize(), 160), augmented, seed);
        return;
    }
    if (const auto* segmentation = dynamic_cast<const SegmentationDataset*>(&ds)) {
        // The training transform whether or not data.augment turns it on for runs.
        const SegmentationDataset drawn(segmentation->sharedSource(), segmentation->imageSize(),
                                        augmented, segmentation->options());
        writeSegmentationGrid(drawn, path, std::min(columns, 8), std::min(rows, 5), augmented,
                              seed);
        return;
    }
    if (augmented)
        throw ConfigError("--augmented", "shows a detection or segmentation set's training "
                                         "transform; " +
                                             config.name + " is neither");
    const Shape s = ds.sampleShape();
    if (s.rank() != 3 || (s[0] != 1 && s[0] != 3)) {
        writeScatter(ds, path);
        return;
    }
    constexpr int kGap = 2;
    const int64_t c = s[0], h = s[1], w = s[2];
    const int64_t count = std::min<int64_t>(int64_t{columns} * rows, ds.size());
    const int64_t usedRows = (count + columns - 1) / columns;
    const int64_t width = columns * (w + kGap) + kGap, height = usedRows * (h + kGap) + kGap;
    std::vector<uint8_t> px(static_cast<std::size_t>(width * height * 3), 40);
    std::vector<float> x(static_cast<std::size_t>(s.numel()));
    for (int64_t k = 0; k < count; ++k) {
        ds.get(k * ds.size() / count, x.data(), 0);
        const int64_t ox = kGap + (k % columns) * (w + kGap),
                      oy = kGap + (k / columns) * (h + kGap);
        for (int64_t y = 0; y < h; ++y)
            for (int64_t xx = 0; xx < w; ++xx)
                for (int64_t ch = 0; ch < 3; ++ch) {
                    const float v =
                        x[static_cast<std::size_t>((c == 3 ? ch : 0) * h * w + y * w + xx)];
                    px[static_cast<std::size_t>(((oy + y) * width + ox + xx) * 3 + ch)] = toByte(v);
                }
    }
    writePng(path, static_cast<int>(width), static_cast<int>(height), 3, px);
}

} // namespace tb

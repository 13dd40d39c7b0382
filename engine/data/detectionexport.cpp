// exportDetection: a detection set's images as PNG files and its boxes in YOLO's or COCO's form.
#include "core/errors.h"
#include "data/datasetexport.h"
#include "data/detectiondataset.h"
#include "data/imagecodec.h"
#include "data/rawsplits.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace tb {

namespace fs = std::filesystem;

namespace {

void writeText(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out.flush())
        throw Error("cannot write " + path.string());
}

std::string yamlQuoted(const std::string& s) {
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
}

// A file name for the image: its name in the set with separators flattened, as .png.
std::string pngName(const DetectionSource& source, int64_t index) {
    std::string name = fs::path(source.imageName(index)).replace_extension(".png").string();
    for (char& c : name)
        if (c == '/' || c == '\\')
            c = '_';
    return name;
}

} // namespace

DetectionExportResult exportDetection(const DataConfig& data, const std::string& folder,
                                      const std::string& format, int64_t limit) {
    if (format != "yolo" && format != "coco")
        throw ConfigError("--format", "a detection set exports as yolo or coco, not " + format);
    if (!isDetectionDataset(data.name))
        throw ConfigError("--format", format + " holds boxes; " + data.name +
                                          " is not a detection set (shapes-detect, yolo, coco)");
    const RawSplits raw = openRawSplits(data, 0);
    requireEmptyExportFolder(folder);
    const fs::path root(folder);
    DetectionExportResult result;
    std::vector<std::string> names;
    for (const char* split : {"train", "val"}) {
        const auto& set = dynamic_cast<const DetectionDataset&>(
            std::string(split) == "train" ? *raw.train : *raw.validation);
        const DetectionSource& source = set.source();
        names = source.classNames();
        const fs::path images = root / "images" / split, labels = root / "labels" / split;
        fs::create_directories(images);
        if (format == "yolo")
            fs::create_directories(labels);
        nlohmann::json cocoImages = nlohmann::json::array(), annotations = nlohmann::json::array();
        const int64_t n = limit > 0 ? std::min(limit, source.size()) : source.size();
        for (int64_t i = 0; i < n; ++i) {
            const LabeledImage img = source.load(i);
            const std::string name = pngName(source, i);
            const fs::path file = images / name;
            writePng(file.string(), img.image.width, img.image.height, 3, img.image.pixels);
            result.bytes += fs::file_size(file);
            ++result.images;
            std::string lines;
            cocoImages.push_back({{"id", i + 1},
                                  {"file_name", name},
                                  {"width", img.image.width},
                                  {"height", img.image.height}});
            const auto w = static_cast<double>(img.image.width);
            const auto h = static_cast<double>(img.image.height);
            for (const LabeledBox& b : source.labels(i).boxes) {
                ++result.boxes;
                if (format == "yolo") {
                    if (b.crowd)
                        continue; // YOLO's labels have no crowd regions
                    char line[128];
                    std::snprintf(line, sizeof line, "%d %.9g %.9g %.9g %.9g\n", b.category,
                                  (b.x1 + b.x2) / 2.0, (b.y1 + b.y2) / 2.0,
                                  static_cast<double>(b.width()), static_cast<double>(b.height()));
                    lines += line;
                } else {
                    const double bw = b.width() * w, bh = b.height() * h;
                    annotations.push_back({{"id", annotations.size() + 1},
                                           {"image_id", i + 1},
                                           {"category_id", b.category + 1},
                                           {"bbox", {b.x1 * w, b.y1 * h, bw, bh}},
                                           {"area", bw * bh},
                                           {"iscrowd", b.crowd ? 1 : 0}});
                }
            }
            if (format == "yolo" && !lines.empty()) // no file: a background image
                writeText(labels / fs::path(name).replace_extension(".txt"), lines);
        }
        if (format == "coco") {
            nlohmann::json categories = nlohmann::json::array();
            for (std::size_t k = 0; k < names.size(); ++k)
                categories.push_back({{"id", k + 1}, {"name", names[k]}});
            fs::create_directories(root / "annotations");
            writeText(root / "annotations" / (std::string("instances_") + split + ".json"),
                      nlohmann::json{{"images", cocoImages},
                                     {"annotations", annotations},
                                     {"categories", categories}}
                          .dump());
        }
    }
    if (format == "yolo") {
        std::string yaml = "# Written by trainbench-cli dataset-export from " + data.name +
                           "\npath: .\ntrain: images/train\nval: images/val\nnames:\n";
        for (std::size_t k = 0; k < names.size(); ++k)
            yaml += "  " + std::to_string(k) + ": " + yamlQuoted(names[k]) + "\n";
        writeText(root / "data.yaml", yaml);
    }
    return result;
}

} // namespace tb

// exportSegmentation: a segmentation set's images and masks in VOC's layout or as images/ and
// masks/ folders, masks as palette PNGs in VOC's colours (their indices the classes).
#include "core/errors.h"
#include "data/datasetexport.h"
#include "data/imagecodec.h"
#include "data/maskcodec.h"
#include "data/rawsplits.h"
#include "data/segmentationdataset.h"
#include "data/segmentationfiles.h"

#include <filesystem>
#include <fstream>

namespace tb {

namespace fs = std::filesystem;

namespace {

void writeLines(const fs::path& path, const std::vector<std::string>& lines) {
    std::ofstream out(path, std::ios::binary);
    for (const std::string& line : lines)
        out << line << '\n';
    if (!out.flush())
        throw Error("cannot write " + path.string());
}

// The image's stem in the set with separators flattened (shapes-seg's 000042, VOC's
// 2007_000032), unique within the export: the split leads where both splits share names.
std::string stemOf(const SegmentationSource& source, int64_t index, const char* split) {
    std::string stem = fs::path(source.imageName(index)).stem().string();
    for (char& c : stem)
        if (c == '/' || c == '\\' || c == ' ')
            c = '_';
    return std::string(split) + "_" + stem;
}

} // namespace

SegmentationExportResult exportSegmentation(const DataConfig& data, const std::string& folder,
                                            const std::string& format, int64_t limit) {
    if (format != "voc" && format != "masks")
        throw ConfigError("--format", "a segmentation set exports as voc or masks, not " + format);
    if (!isSegmentationDataset(data.name))
        throw ConfigError("--format", format + " holds masks; " + data.name +
                                          " is not a segmentation set (shapes-seg, voc, masks)");
    const RawSplits raw = openRawSplits(data, 0);
    requireEmptyExportFolder(folder);
    const fs::path root(folder);
    const bool voc = format == "voc";
    SegmentationExportResult result;
    std::vector<std::string> names;
    SegmentedImage sample;
    for (const char* split : {"train", "val"}) {
        const auto& set = dynamic_cast<const SegmentationDataset&>(
            std::string(split) == "train" ? *raw.train : *raw.validation);
        const SegmentationSource& source = set.source();
        names = source.classNames();
        const fs::path images = voc ? root / "JPEGImages" : root / "images" / split;
        const fs::path masks = voc ? root / "SegmentationClass" : root / "masks" / split;
        fs::create_directories(images);
        fs::create_directories(masks);
        std::vector<std::string> listed;
        const int64_t n = limit > 0 ? std::min(limit, source.size()) : source.size();
        for (int64_t i = 0; i < n; ++i) {
            source.load(i, sample);
            const std::string stem = stemOf(source, i, split);
            // Lossless images: a JPEG's ringing would move the edges the masks draw.
            const fs::path image = images / (stem + ".png"), mask = masks / (stem + ".png");
            writePng(image.string(), sample.image.width, sample.image.height, 3,
                     sample.image.pixels);
            writeMaskPng(mask.string(), sample.mask);
            result.bytes += fs::file_size(image) + fs::file_size(mask);
            ++result.images;
            listed.push_back(stem);
        }
        if (voc) {
            fs::create_directories(root / "ImageSets" / "Segmentation");
            writeLines(root / "ImageSets" / "Segmentation" / (std::string(split) + ".txt"), listed);
        }
    }
    // VOC's own 21 classes need no list; any other set names its classes beside the folders.
    if (!voc || names != vocClassNames())
        writeLines(root / "classes.txt", names);
    return result;
}

} // namespace tb

// Detection statistics and grids: boxes counted from the labels alone, pixels only for the grid.
#include "data/detectioninfo.h"

#include "data/bitmapfont.h"
#include "data/dataloader.h"
#include "data/detectaugment.h"
#include "data/imagecodec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>

namespace tb {

namespace {

// Distinct colours (then they repeat), light enough for black text.
const uint8_t kBoxColours[10][3] = {{255, 56, 56},  {255, 157, 151}, {255, 112, 31}, {255, 178, 29},
                                    {207, 210, 49}, {72, 249, 10},   {146, 204, 23}, {61, 219, 134},
                                    {26, 147, 52},  {0, 212, 187}};

void fillRect(std::vector<uint8_t>& rgb, int width, int height, int x1, int y1, int x2, int y2,
              const uint8_t colour[3]) {
    for (int y = std::max(0, y1); y < std::min(height, y2); ++y)
        for (int x = std::max(0, x1); x < std::min(width, x2); ++x)
            std::copy_n(colour, 3, &rgb[(static_cast<std::size_t>(y) * width + x) * 3]);
}

} // namespace

DetectionSplitStats detectionStats(const DetectionSource& source, int inputSize) {
    DetectionSplitStats s;
    const std::size_t classes = source.classNames().size();
    s.boxesPerClass.assign(classes, 0);
    s.imagesPerClass.assign(classes, 0);
    s.images = source.size();
    for (int64_t i = 0; i < source.size(); ++i) {
        const ImageLabels& labels = source.labels(i);
        int64_t boxes = 0;
        std::set<int32_t> present;
        int w = labels.width, h = labels.height;
        for (const LabeledBox& b : labels.boxes) {
            if (b.crowd) {
                ++s.crowd;
                continue;
            }
            if (w == 0 || h == 0) // only for images with boxes
                std::tie(w, h) = source.imageSize(i);
            ++boxes;
            ++s.boxesPerClass[static_cast<std::size_t>(b.category)];
            present.insert(b.category);
            const double r = static_cast<double>(inputSize) / std::max(w, h);
            const double area = b.width() * w * r * b.height() * h * r;
            (area < 32.0 * 32.0 ? s.small : area < 96.0 * 96.0 ? s.medium : s.large) += 1;
        }
        for (int32_t c : present)
            ++s.imagesPerClass[static_cast<std::size_t>(c)];
        s.boxes += boxes;
        s.background += boxes == 0 && labels.boxes.empty();
        s.mostBoxes = std::max(s.mostBoxes, boxes);
    }
    return s;
}

nlohmann::json detectionStatsToJson(const DetectionSplitStats& s,
                                    const std::vector<std::string>& classNames) {
    nlohmann::json classes = nlohmann::json::array();
    for (std::size_t k = 0; k < classNames.size(); ++k)
        classes.push_back({{"id", k},
                           {"name", classNames[k]},
                           {"boxes", s.boxesPerClass[k]},
                           {"images", s.imagesPerClass[k]}});
    return {{"images", s.images},
            {"boxes", s.boxes},
            {"crowd", s.crowd},
            {"background_images", s.background},
            {"boxes_per_image", s.images ? static_cast<double>(s.boxes) / s.images : 0.0},
            {"most_boxes_in_an_image", s.mostBoxes},
            {"sizes", {{"small", s.small}, {"medium", s.medium}, {"large", s.large}}},
            {"classes", classes}};
}

void drawBoxes(LabeledImage& image, const std::vector<std::string>& classNames) {
    const int w = image.image.width, h = image.image.height;
    std::vector<uint8_t>& px = image.image.pixels;
    static const uint8_t kBlack[3] = {0, 0, 0};
    for (const LabeledBox& b : image.boxes) {
        const uint8_t* colour = kBoxColours[b.category % 10];
        const int x1 = static_cast<int>(b.x1), y1 = static_cast<int>(b.y1);
        const int x2 = static_cast<int>(std::ceil(b.x2)), y2 = static_cast<int>(std::ceil(b.y2));
        fillRect(px, w, h, x1, y1, x2, y1 + 2, colour);
        fillRect(px, w, h, x1, y2 - 2, x2, y2, colour);
        fillRect(px, w, h, x1, y1, x1 + 2, y2, colour);
        fillRect(px, w, h, x2 - 2, y1, x2, y2, colour);
        const std::string name = b.category < std::ssize(classNames)
                                     ? classNames[static_cast<std::size_t>(b.category)]
                                     : std::to_string(b.category);
        // The name on a tab of the box's colour, above the box where there is room.
        const int tabH = kGlyphHeight + 3, tabW = textWidth(name) + 4;
        const int ty = y1 >= tabH ? y1 - tabH : y1;
        const int tx = std::clamp(x1, 0, std::max(0, w - tabW));
        fillRect(px, w, h, tx, ty, tx + tabW, ty + tabH, colour);
        drawText(px, w, h, tx + 2, ty + 2, name, kBlack);
    }
}

LabeledImage firstEpochSample(const DetectionDataset& dataset, int64_t index, uint64_t seed) {
    return dataset.labeledSample(index, sampleSeed(epochSeed(seed, 0), index));
}

void writeDetectionGrid(const DetectionDataset& dataset, const std::string& path, int columns,
                        int rows, int tile, bool augmented, uint64_t seed) {
    constexpr int kGap = 4;
    const int64_t count = std::min<int64_t>(int64_t{columns} * rows, dataset.size());
    const int64_t usedRows = (count + columns - 1) / columns;
    const int width = columns * (tile + kGap) + kGap;
    const int height = static_cast<int>(usedRows) * (tile + kGap) + kGap;
    std::vector<uint8_t> px(static_cast<std::size_t>(width) * height * 3, 40);
    const std::vector<std::string> names = dataset.classNames();
    for (int64_t k = 0; k < count; ++k) {
        const int64_t index = k * dataset.size() / count;
        LabeledImage sample =
            augmented ? firstEpochSample(dataset, index, seed) : dataset.source().load(index);
        sample = letterbox(sample, tile);
        drawBoxes(sample, names);
        const int ox = kGap + static_cast<int>(k % columns) * (tile + kGap);
        const int oy = kGap + static_cast<int>(k / columns) * (tile + kGap);
        for (int y = 0; y < tile; ++y)
            std::copy_n(&sample.image.pixels[static_cast<std::size_t>(y) * tile * 3], tile * 3,
                        &px[(static_cast<std::size_t>(oy + y) * width + ox) * 3]);
    }
    writePng(path, width, height, 3, px);
}

} // namespace tb

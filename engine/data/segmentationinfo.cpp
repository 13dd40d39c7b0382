// Segmentation statistics and grids.
#include "data/segmentationinfo.h"

#include "data/bitmapfont.h"
#include "data/dataloader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace tb {

SegmentationSplitStats segmentationStats(const SegmentationSource& source) {
    SegmentationSplitStats s;
    const std::size_t classes = source.classNames().size();
    s.pixelsPerClass.assign(classes, 0);
    s.imagesPerClass.assign(classes, 0);
    s.images = source.size();
    for (int64_t i = 0; i < source.size(); ++i) {
        const MaskCounts& counts = source.maskCounts(i);
        for (std::size_t c = 0; c < classes; ++c) {
            s.pixelsPerClass[c] += counts.perClass[c];
            s.imagesPerClass[c] += counts.perClass[c] > 0 ? 1 : 0;
            s.pixels += counts.perClass[c];
        }
        s.ignored += counts.ignored;
    }
    return s;
}

nlohmann::json segmentationStatsToJson(const SegmentationSplitStats& s,
                                       const std::vector<std::string>& classNames) {
    nlohmann::json classes = nlohmann::json::array();
    for (std::size_t k = 0; k < classNames.size(); ++k)
        classes.push_back(
            {{"id", k},
             {"name", classNames[k]},
             {"pixels", s.pixelsPerClass[k]},
             {"pixel_share", s.pixels ? static_cast<double>(s.pixelsPerClass[k]) / s.pixels : 0.0},
             {"images", s.imagesPerClass[k]}});
    return {{"images", s.images},
            {"pixels", s.pixels},
            {"ignored_pixels", s.ignored},
            {"classes", classes}};
}

void overlayMask(RgbImage& image, const ClassMask& mask, float opacity) {
    const auto& palette = vocPalette();
    for (std::size_t i = 0; i < mask.classes.size(); ++i) {
        const uint8_t c = mask.classes[i];
        if (c == 0 || c == kMaskIgnore)
            continue;
        for (std::size_t ch = 0; ch < 3; ++ch) {
            uint8_t& p = image.pixels[i * 3 + ch];
            p = static_cast<uint8_t>(std::lround(p + opacity * (palette[c][ch] - p)));
        }
    }
}

void writeSegmentationGrid(const SegmentationDataset& dataset, const std::string& path, int columns,
                           int rows, bool augmented, uint64_t seed) {
    constexpr int kGap = 4, kSwatch = 10, kLegendRow = 14, kLeastTile = 96;
    // The model's pixels, each drawn zoom x zoom so that small inputs stay visible.
    const int size = dataset.imageSize(), zoom = std::max(1, kLeastTile / size);
    const int tile = size * zoom;
    const int64_t count = std::min<int64_t>(int64_t{columns} * rows, dataset.size());
    const int64_t usedRows = (count + columns - 1) / columns;
    const int width = columns * (tile + kGap) + kGap;
    const std::vector<std::string> names = dataset.classNames();
    // The legend: as many names a row as fit, each after its colour.
    int legendWidth = 0;
    for (const std::string& n : names)
        legendWidth = std::max(legendWidth, kSwatch + 4 + textWidth(n) + 12);
    const int perRow = std::max(1, (width - kGap) / legendWidth);
    const int legendRows = (static_cast<int>(names.size()) + perRow - 1) / perRow;
    const int gridHeight = static_cast<int>(usedRows) * (tile + kGap) + kGap;
    const int height = gridHeight + legendRows * kLegendRow + kGap;
    std::vector<uint8_t> px(static_cast<std::size_t>(width) * height * 3, 40);
    for (int64_t k = 0; k < count; ++k) {
        const int64_t index = k * dataset.size() / count;
        // A training split draws as the loader does in epoch 0; a validation split is resized.
        SegmentedImage sample =
            dataset.segmentedSample(index, augmented ? sampleSeed(epochSeed(seed, 0), index) : 0);
        overlayMask(sample.image, sample.mask, 0.55f);
        const int ox = kGap + static_cast<int>(k % columns) * (tile + kGap);
        const int oy = kGap + static_cast<int>(k / columns) * (tile + kGap);
        for (int y = 0; y < tile; ++y)
            for (int x = 0; x < tile; ++x)
                std::copy_n(&sample.image.pixels[(static_cast<std::size_t>(y / zoom) * size +
                                                  static_cast<std::size_t>(x / zoom)) *
                                                 3],
                            3, &px[(static_cast<std::size_t>(oy + y) * width + ox + x) * 3]);
    }
    static const uint8_t kText[3] = {230, 230, 230};
    const auto& palette = vocPalette();
    for (std::size_t c = 0; c < names.size(); ++c) {
        const int x = kGap + static_cast<int>(c % static_cast<std::size_t>(perRow)) * legendWidth;
        const int y =
            gridHeight + static_cast<int>(c / static_cast<std::size_t>(perRow)) * kLegendRow;
        // The background is left unpainted on the tiles: its swatch is the grid's grey.
        for (int dy = 0; dy < kSwatch; ++dy)
            for (int dx = 0; dx < kSwatch; ++dx)
                std::copy_n(c == 0 ? &px[0] : palette[c].data(), 3,
                            &px[(static_cast<std::size_t>(y + dy) * width + x + dx) * 3]);
        drawText(px, width, height, x + kSwatch + 4, y + 2, names[c], kText);
    }
    writePng(path, width, height, 3, px);
}

} // namespace tb

// What dataset-info shows of a segmentation set: images, each class's share of the counted
// pixels and the images it appears in, the ignored share, and a sample grid with each mask laid
// over its image in VOC's colours and a legend of the class names.
#pragma once

#include "data/segmentationdataset.h"
#include "data/segmentationsource.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

struct SegmentationSplitStats {
    int64_t images = 0;
    int64_t pixels = 0;  // counted: every pixel but the ignored
    int64_t ignored = 0; // labelled with the ignore index
    std::vector<int64_t> pixelsPerClass, imagesPerClass;
};

// Counts from the readers' per-image class counts: no image is decoded again.
SegmentationSplitStats segmentationStats(const SegmentationSource& source);
nlohmann::json segmentationStatsToJson(const SegmentationSplitStats& stats,
                                       const std::vector<std::string>& classNames);

// `image` with `mask` laid over it: each class's VOC colour at `opacity` (0 to 1), class 0 (the
// background) and ignored pixels left as they are.
void overlayMask(RgbImage& image, const ClassMask& mask, float opacity);

// A PNG grid of columns x rows tiles, each image with its mask laid over it as the model sees
// them (`dataset`'s transform: with `augmented`, as the loader draws training samples in epoch
// 0 of a run seeded `seed`), small inputs drawn larger pixel by pixel, and below them a legend:
// each class's colour and name.
void writeSegmentationGrid(const SegmentationDataset& dataset, const std::string& path, int columns,
                           int rows, bool augmented, uint64_t seed);

} // namespace tb

// What dataset-info and the set-up panel show of a detection set: images, boxes, boxes per image,
// boxes and images per class, box sizes as COCO counts them, and sample grids with the boxes
// and class names drawn (the images as they are, or training samples after augmentation).
#pragma once

#include "data/detectiondataset.h"
#include "data/detectionsource.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

struct DetectionSplitStats {
    int64_t images = 0;
    int64_t boxes = 0;      // crowd regions not counted
    int64_t crowd = 0;      // COCO's iscrowd regions
    int64_t background = 0; // images without a box
    int64_t mostBoxes = 0;  // in one image
    std::vector<int64_t> boxesPerClass, imagesPerClass;
    // COCO's size classes (area under 32^2, under 96^2, the rest), measured in the detector's
    // input pixels: after the image is letterboxed to data.imgsz.
    int64_t small = 0, medium = 0, large = 0;
};

// Counts `source`'s boxes; reads the size of images whose reader did not (YOLO's) from their
// headers.
DetectionSplitStats detectionStats(const DetectionSource& source, int inputSize);
nlohmann::json detectionStatsToJson(const DetectionSplitStats& stats,
                                    const std::vector<std::string>& classNames);

// Draws each box (2 px, the class's colour) and its class name into `image`.
void drawBoxes(LabeledImage& image, const std::vector<std::string>& classNames);

// Training sample `index` as the loader draws it in epoch 0 of a run seeded `seed` (mosaic,
// affine, HSV, flip), its boxes in its pixels.
LabeledImage firstEpochSample(const DetectionDataset& dataset, int64_t index, uint64_t seed);

// A PNG grid of columns x rows tiles (tile x tile px each): `dataset`'s images letterboxed, or
// with `augmented` its training samples as the loader makes them in epoch 0 (mosaic, affine,
// HSV, flip), their boxes and class names drawn.
void writeDetectionGrid(const DetectionDataset& dataset, const std::string& path, int columns,
                        int rows, int tile, bool augmented, uint64_t seed);

} // namespace tb

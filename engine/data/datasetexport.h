// A dataset written out as an ImageFolder of image files (trainbench-cli dataset-export): a
// built-in set becomes what a user's own photos are, files to decode, crop and resize on every
// sample, so the DataLoader's workers have work that shows.
#pragma once

#include "data/dataconfig.h"

#include <cstdint>
#include <string>

namespace tb {

struct DatasetExportOptions {
    std::string format = "jpeg"; // jpeg | png
    int size = 0;                // side of the written images; 0 = the samples' own
    int quality = 90;            // JPEG quality, 1 to 100
    int64_t limit = 0;           // the first N samples of the train split; 0 = all
    int threads = 0;             // encoding threads; 0 = one per hardware thread
};

struct DatasetExportResult {
    int64_t images = 0;
    int classes = 0; // folders written: the classes among the images
    int size = 0;
    uint64_t bytes = 0;
};

// Writes the train split of `data` (un-normalised, un-augmented) into `folder`: one sub-folder
// per class among the samples written, named by the class, and in it the samples numbered in the
// split's order (00042.jpg), resized bilinearly to size x size, grey samples as grey images. Throws
// ConfigError naming the option for a bad format, size, quality or a set whose samples are not
// images, and Error naming the folder when it exists and is not empty (nothing is overwritten)
// or a file cannot be written.
DatasetExportResult exportImageFolder(const DataConfig& data, const std::string& folder,
                                      const DatasetExportOptions& options);

struct DetectionExportResult {
    int64_t images = 0; // both splits
    int64_t boxes = 0;
    uint64_t bytes = 0;
};

// Writes both splits of a detection set (data.name shapes-detect, yolo or coco) into `folder`
// (new or empty) for other tools: `format` "yolo" (data.yaml, images/{train,val}/*.png,
// labels/{train,val}/*.txt) or "coco" (annotations/instances_{train,val}.json, images/{train,
// val}/*.png; categories 1..n, crowd regions kept with iscrowd 1). Images as PNG at their own
// size, boxes exactly as the reader holds them. `limit`: the first N images of each split (0:
// all). Both formats read back with dataset=yolo / dataset=coco and data.root=folder.
DetectionExportResult exportDetection(const DataConfig& data, const std::string& folder,
                                      const std::string& format, int64_t limit = 0);

struct SegmentationExportResult {
    int64_t images = 0; // both splits
    uint64_t bytes = 0; // images and masks
};

// Writes both splits of a segmentation set (data.name shapes-seg, voc or masks) into `folder`
// (new or empty): `format` "voc" (JPEGImages/, SegmentationClass/, ImageSets/Segmentation/
// {train,val}.txt, and classes.txt unless the classes are VOC's) or "masks" (images/{train,val},
// masks/{train,val}, classes.txt). Images as PNG, masks as palette PNGs in VOC's colours, both at
// the images' own size; file names lead with the split. `limit`: the first N images of each
// split (0: all). Both read back with dataset=voc / dataset=masks and data.root=folder.
SegmentationExportResult exportSegmentation(const DataConfig& data, const std::string& folder,
                                            const std::string& format, int64_t limit = 0);

// Creates `folder`, or accepts it when it is an empty folder; throws Error otherwise, so that
// an export overwrites nothing.
void requireEmptyExportFolder(const std::string& folder);

} // namespace tb

// What data a run trains on: the `dataset` and `data.*` keys of a RunConfig.
#pragma once

#include "data/detectaugment.h"

#include <cstdint>
#include <string>

namespace tb {

// Limits of the data.* keys: RunConfig's schema enforces them, openDatasets() relies on them.
inline constexpr int kMinImageSize = 8, kMaxImageSize = 512;
inline constexpr int64_t kMinSyntheticSamples = 10, kMaxSyntheticSamples = 10'000'000;
inline constexpr int kMaxSyntheticClasses = 16; // spirals and blobs; shapes draws at most 6
inline constexpr int kMinBlockSize = 2, kMaxBlockSize = 4096;
// Detection's input side: a multiple of the detector's largest stride (32), as Ultralytics rounds.
inline constexpr int kMinDetectSize = 64, kMaxDetectSize = 640, kDetectStride = 32;
// data.imgsz 0 means the set's own: shapes-detect's scenes are drawn at 128 px, small enough to
// train on a CPU; files are letterboxed to Ultralytics' 640.
inline constexpr int kShapesDetectSize = 128, kFilesDetectSize = 640;

// The sets whose samples are images with boxes.
inline bool isDetectionDataset(const std::string& name) {
    return name == "shapes-detect" || name == "yolo" || name == "coco";
}

// The sets whose samples are images with a class per pixel.
inline bool isSegmentationDataset(const std::string& name) {
    return name == "shapes-seg" || name == "voc" || name == "masks";
}

struct DataConfig;
// A detection set's input side: data.imgsz, or where that is 0 the set's own.
int inputSizeOf(const DataConfig& config);

struct DataConfig {
    // fashion-mnist, mnist, cifar10, cifar100, imagefolder, csv, spirals, blobs, shapes, text,
    // for detection shapes-detect, yolo (a data.yaml) and coco (instances JSON), and for
    // segmentation shapes-seg, voc and masks (images/ + masks/ folders)
    std::string name = "fashion-mnist";
    // Folder (IDX, CIFAR, ImageFolder, text) or file (CSV, text); empty means the dataset's
    // default place.
    std::string root;
    // Fraction held out for validation when the set has no test split (seeded split).
    double valFraction = 0.1;
    // Training-time augmentation: random crop with padding + horizontal flip for 32x32 images,
    // random resized crop + flip for ImageFolder. Off for the default run.
    bool augment = false;
    // Subtract the per-channel mean and divide by the std.
    bool normalize = true;
    // Whose statistics: "dataset" (computed once from its images and cached), "imagenet"
    // (torchvision's, which its pretrained weights expect; RGB only) or "auto": ImageNet's for a
    // run from pretrained weights on RGB images, else the dataset's.
    std::string normStats = "auto";
    // Side length that ImageFolder, the synthetic shapes and the segmentation sets produce.
    int imageSize = 32;
    // CSV: label column by name or 0-based index; empty = last column. Header: auto|yes|no.
    std::string csvLabel;
    std::string csvHeader = "auto";
    // Synthetic sets (spirals, blobs, shapes): samples in the train split.
    int64_t syntheticSamples = 2000;
    int syntheticClasses = 3;
    // Text: tokens per sample (the context a language model sees) and the vocabulary: "char"
    // (the distinct characters of the corpus) or "byte" (all 256 byte values).
    int blockSize = 64;
    std::string vocabulary = "char";
    // Detection: the square input side (Ultralytics' imgsz), its training augmentation, and the
    // epochs at the end trained without mosaic (close_mosaic).
    int detectSize = 0; // 0: the set's own (inputSizeOf)
    DetectAugmentOptions detectAugment;
    int closeMosaic = 10;
};

inline int inputSizeOf(const DataConfig& config) {
    if (config.detectSize > 0)
        return config.detectSize;
    return config.name == "shapes-detect" ? kShapesDetectSize : kFilesDetectSize;
}

} // namespace tb

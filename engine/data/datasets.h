// Opens the datasets a DataConfig names: readers for IDX, CIFAR, ImageFolder, CSV and synthetic.
#pragma once

#include "data/dataconfig.h"
#include "data/dataset.h"

#include <memory>
#include <string>
#include <vector>

namespace tb {

struct DatasetSplits {
    std::shared_ptr<const Dataset> train;
    std::shared_ptr<const Dataset> validation; // the test split, or a seeded held-out fraction
    // The per-channel normalisation both splits apply (empty when data.normalize is off), for
    // inputs from elsewhere (a drawn digit) to be seen as the model saw its data.
    std::vector<float> mean, stdDev;
    std::string normStats; // "dataset" or "imagenet" (data.norm_stats resolved); empty when off
    // What the readers skipped while opening, one line each (a box of zero size, a label file
    // without its image): shown by the CLI and the window, never dropped silently.
    std::vector<std::string> warnings;
};

// torchvision's ImageNet statistics (transforms.Normalize in its pretrained models' recipes).
inline const std::vector<float> kImageNetMean{0.485f, 0.456f, 0.406f};
inline const std::vector<float> kImageNetStd{0.229f, 0.224f, 0.225f};

// Whose statistics data.normalize uses for samples of this shape: "imagenet", "dataset", or ""
// when normalisation is off. Throws ConfigError("data.norm_stats") for ImageNet's asked of
// samples that are not RGB images.
std::string resolveNormStats(const DataConfig& config, const Shape& sample, bool pretrained);

// Opens train and validation sets, applying normalisation and (train only) augmentation.
// `pretrained`: the model starts from pretrained weights (data.norm_stats=auto then means
// ImageNet's statistics for RGB images). Throws DatasetError naming the file and offset for
// anything missing or malformed, and ConfigError for an unknown dataset name or ImageNet's
// statistics asked of images that are not RGB.
DatasetSplits openDatasets(const DataConfig& config, uint64_t seed, bool pretrained = false);

// Names openDatasets() accepts, for `trainbench-cli datasets` and the UI's picker.
std::vector<std::string> datasetNames();

} // namespace tb

// What each reader family hands to openDatasets(): the un-normalised train and validation sets
// plus how to normalise and augment them. Internal to the data module.
#pragma once

#include "data/dataconfig.h"
#include "data/dataset.h"

#include <memory>
#include <string>
#include <vector>

namespace tb {

struct RawSplits {
    std::shared_ptr<const Dataset> train;
    std::shared_ptr<const Dataset> validation;
    // Where the statistics come from when not the train set (e.g. un-augmented images).
    std::shared_ptr<const Dataset> statsSource;
    // Cache key for the train set's channel statistics (empty: compute every time).
    std::string statsKey;
    // Samples used for the statistics (0 = all); small for sets decoded from files.
    int64_t statsSamples = 0;
    // Random crop padding and flip applied to train when augment is on (padding 0 = no crop).
    int cropPadding = 0;
    bool flip = false;
    // What the readers skipped while opening (detection's labels), one line each.
    std::vector<std::string> warnings;
};

// The families; each throws DatasetError for missing or malformed files.
RawSplits openIdxSplits(const DataConfig& config);
RawSplits openCifarSplits(const DataConfig& config);
RawSplits openImageFolderSplits(const DataConfig& config, uint64_t seed);
RawSplits openCsvSplits(const DataConfig& config, uint64_t seed);
RawSplits openSyntheticSplits(const DataConfig& config, uint64_t seed);
RawSplits openTextSplits(const DataConfig& config, uint64_t seed);
// shapes-detect, yolo and coco: DetectionDatasets (data/detectiondataset.h).
RawSplits openDetectionSplits(const DataConfig& config, uint64_t seed);
// shapes-seg, voc and masks: SegmentationDatasets (data/segmentationdataset.h).
RawSplits openSegmentationSplits(const DataConfig& config, uint64_t seed);

// Finds the family for config.name (ConfigError("dataset") listing the known names if none) and
// opens its raw splits: no normalisation, no augmentation wrappers.
RawSplits openRawSplits(const DataConfig& config, uint64_t seed);

// The folder a dataset reads by default ("" when it has none, like imagefolder and csv).
std::string defaultDatasetRoot(const std::string& name);

} // namespace tb

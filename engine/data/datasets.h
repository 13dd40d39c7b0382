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
};

// Opens train and validation sets, applying normalisation and (train only) augmentation.
// Throws DatasetError naming the file and offset for anything missing or malformed, and
// ConfigError for an unknown dataset name.
DatasetSplits openDatasets(const DataConfig& config, uint64_t seed);

// Names openDatasets() accepts, for `trainbench-cli datasets` and the UI's picker.
std::vector<std::string> datasetNames();

} // namespace tb

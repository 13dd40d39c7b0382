// What `trainbench-cli datasets` and `dataset-info` show: which datasets this machine has, and
// for one dataset its sizes, shape, classes, class histogram, channel statistics and a PNG grid.
#pragma once

#include "core/shape.h"
#include "data/channelstats.h"
#include "data/dataconfig.h"
#include "data/dataset.h"
#include "data/detectioninfo.h"
#include "data/segmentationinfo.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb {

struct DatasetAvailability {
    std::string name;
    bool found = false;   // usable as is (files present, or built in)
    std::string location; // the default folder, "built in", or "" when data.root is required
    std::string note;     // "found", "missing", "built in (no files)", "needs data.root"
};

// One entry per datasetNames() name, checking the default folders on this machine.
std::vector<DatasetAvailability> datasetAvailability();

struct DatasetInfo {
    std::string name;
    std::string trainDescription;
    std::string validationDescription;
    int64_t trainSize = 0;
    int64_t validationSize = 0;
    Shape sampleShape;
    std::vector<std::string> classNames;
    std::vector<int64_t> trainHistogram; // samples per class
    std::vector<int64_t> validationHistogram;
    ChannelStats stats; // of the train set, from the cache when present
    // A detection set's: histograms then count boxes, and these say the rest.
    struct Detection {
        int inputSize = 0; // data.imgsz
        DetectionSplitStats train, validation;
        std::vector<std::string> warnings; // what the readers skipped
    };
    std::optional<Detection> detection;
    // A segmentation set's: histograms then count the images a class appears in.
    struct Segmentation {
        int inputSize = 0; // data.image_size
        SegmentationSplitStats train, validation;
        std::vector<std::string> warnings; // what the readers skipped
    };
    std::optional<Segmentation> segmentation;
};

// Opens the dataset (errors as openDatasets) and gathers its description.
DatasetInfo describeDataset(const DataConfig& config, uint64_t seed = 0);
nlohmann::json datasetInfoToJson(const DatasetInfo& info);

// Writes a PNG of samples from the un-normalised train split of config: a rows x columns grid
// of images, or for feature vectors a scatter plot of the first two features coloured by class.
// A detection set's images (at most 6 x 4, 160 px tiles) have their boxes and class names
// drawn, a segmentation set's (at least 96 px) their masks laid over them and a legend;
// `augmented` shows them as training sees them (mosaic, affine, HSV, flip; random scale, flip
// and crop), which detection and segmentation sets support here.
void writeSampleGrid(const DataConfig& config, const std::string& path, int columns = 10,
                     int rows = 8, uint64_t seed = 0, bool augmented = false);

} // namespace tb

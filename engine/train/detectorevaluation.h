// `trainbench-cli evaluate`: a detector's checkpoint measured on its run's validation split, as
// the epoch's validation measured it, and both sides written as COCO files (the ground truth as
// instances JSON, the detections in COCO's results format) so that any COCO evaluator can
// recompute the figures. Coordinates are the network's input pixels (images letterboxed to
// data.imgsz), the same for both files; image ids count from 1 in the split's order and
// category ids are class index + 1.
#pragma once

#include "train/detectionvalidation.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tb {

struct DetectorEvaluation {
    std::string checkpoint;
    std::vector<std::string> classNames;
    std::vector<std::string> imageNames; // the validation images, in order
    int imageSize = 0;
    DetectionPass pass;
    DetectionReport report;
};

// Loads the checkpoint on the CPU and runs its validation split through it, `batch` images at
// a time. Throws ConfigError("model") for a model that is not a detector, and what
// TrainedModel and the dataset readers throw.
DetectorEvaluation evaluateDetector(const std::string& checkpoint, int64_t batch, int threads);

nlohmann::json cocoGroundTruth(const DetectorEvaluation& evaluation);
nlohmann::json cocoResults(const DetectorEvaluation& evaluation);

} // namespace tb

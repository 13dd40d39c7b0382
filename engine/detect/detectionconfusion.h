// A detector's confusion matrix as Ultralytics' ConfusionMatrix (task "detect") counts it: per
// image, detections above a confidence matched one-to-one to ground truth they overlap above an
// IoU threshold (the highest overlaps first); a matched pair counts under its two classes, a
// ground-truth box left unmatched as "missed" (predicted background), and a detection left
// unmatched as a false positive (true background). The background is the last row and column.
#pragma once

#include "detect/cocoeval.h"

#include <cstdint>
#include <vector>

namespace tb::detect {

struct ConfusionOptions {
    double confidence = 0.25; // Ultralytics' validation defaults for the matrix
    double iou = 0.45;
};

// (classes + 1) x (classes + 1) counts, row-major: row = true class, column = predicted class,
// index `classes` = background. Crowd regions are left out (COCO ignores them), and so are
// unmatched detections lying in one (overlapping it above the IoU threshold by COCO's crowd
// measure). Images are those the boxes name.
std::vector<int64_t> detectionConfusion(const std::vector<GroundTruth>& truth,
                                        const std::vector<Detection>& detections, int classes,
                                        const ConfusionOptions& options = {});

} // namespace tb::detect

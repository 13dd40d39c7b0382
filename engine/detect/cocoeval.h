// Detection quality as COCO defines it (pycocotools' COCOeval for boxes, whose algorithm this
// follows step for step): per image and class, detections by score (at most maxDetections)
// matched greedily to the unmatched ground truth they overlap most at each IoU threshold,
// crowd boxes and boxes outside the area range ignored rather than missed; per class,
// precision at 101 recall points (made monotone), averaged over recall, thresholds and the
// classes that have ground truth.
#pragma once

#include "detect/boxes.h"

#include <cstdint>
#include <vector>

namespace tb::detect {

struct GroundTruth {
    int64_t image = 0;
    int category = 0;
    Box box;
    bool crowd = false;
    double area = -1; // COCO's annotation area (a segmentation's, in COCO itself); < 0: box's
};

struct Detection {
    int64_t image = 0;
    int category = 0;
    Box box;
    double score = 0;
};

struct CocoEvalOptions {
    int maxDetections = 100;            // per image and class, as COCO's AP
    double minArea = 0, maxArea = 1e10; // COCO's "all"; small < 32^2 <= medium < 96^2 <= large
};

struct ClassResult {
    int category = 0;
    int64_t groundTruths = 0; // not ignored
    int64_t detections = 0;   // after the per-image cap
    // Average precision at each of the 10 IoU thresholds 0.50, 0.55, ..., 0.95; empty when the
    // class has no ground truth (COCO leaves it out of the mean).
    std::vector<double> ap;
    // Precision at recall 0, 0.01, ..., 1 at IoU 0.5 (the class's precision-recall curve).
    std::vector<double> precision50;
    double recall50 = 0; // the recall all detections reach at IoU 0.5
    double ap50() const { return ap.empty() ? -1 : ap.front(); }
    double ap5095() const;
};

struct CocoEvalResult {
    std::vector<ClassResult> classes; // by category id, ascending
    double map50 = -1;                // -1 when no class has ground truth
    double map5095 = -1;
};

// The IoU thresholds 0.50:0.05:0.95 and recall points 0:0.01:1, as numpy.linspace makes them.
const std::vector<double>& cocoIouThresholds();
const std::vector<double>& cocoRecallPoints();

// Evaluates `detections` against `truth` over `images` (every image evaluated, those without
// boxes included: their detections are false positives) and `categories` (a category without
// ground truth is listed but left out of the means). Throws Error for a detection or ground
// truth on an image or category not listed.
CocoEvalResult evaluateCoco(const std::vector<GroundTruth>& truth,
                            const std::vector<Detection>& detections,
                            const std::vector<int64_t>& images, const std::vector<int>& categories,
                            const CocoEvalOptions& options = {});

} // namespace tb::detect

// YOLOv8's detection loss (Ultralytics' v8DetectionLoss with BboxLoss): targets from the task-
// aligned assigner; binary cross-entropy of every class logit against its aligned target; for
// the anchor points that learn a box, 1 - CIoU of the decoded box and the distribution focal
// loss of each side's bins around the true distance, both weighted by the aligned target. Each
// term is divided by the batch's sum of class targets (at least 1) and multiplied by its gain.
#pragma once

#include "detect/headdecode.h"
#include "detect/taskalignedassigner.h"

#include <vector>

namespace tb::detect {

struct DetectionLossOptions {
    double box = 7.5; // Ultralytics' gains (hyp.box, hyp.cls, hyp.dfl)
    double cls = 0.5;
    double dfl = 1.5;
    AssignerOptions assigner;
};

struct DetectionLossTerms {
    double box = 0, cls = 0, dfl = 0; // each after its gain
    double total() const { return box + cls + dfl; }
    int64_t positives = 0; // anchor points that learn a box, over the batch
};

// The loss of a batch of head outputs (`head`: images x (4 regMax + classes) x anchors, as
// DetectOutput writes it) against each image's boxes (pixels of the network's input). With
// `grad`, writes d (total x gradScale) / d head there (Ultralytics scales by the batch size).
DetectionLossTerms detectionLoss(const float* head, int64_t images, int64_t anchors, int regMax,
                                 int classes, const std::vector<AnchorPoint>& points,
                                 const std::vector<std::vector<TargetBox>>& targets,
                                 const DetectionLossOptions& options, float* grad = nullptr,
                                 double gradScale = 1.0);

} // namespace tb::detect

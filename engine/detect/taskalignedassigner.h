// YOLOv8's task-aligned assigner (Feng et al. 2021, TOOD; Ultralytics' TaskAlignedAssigner):
// which anchor points learn which ground-truth box. For each box, the anchor points whose
// centres lie inside it are ranked by score^alpha x CIoU^beta (the predicted score of the box's
// class and the predicted box's overlap with it); the top k become positives. An anchor point
// claimed by several boxes keeps the one its prediction overlaps most. Its class target is the
// alignment normalised so that each box's best anchor point gets that box's best overlap.
#pragma once

#include "detect/headdecode.h"

#include <vector>

namespace tb::detect {

struct TargetBox {
    int category;
    Corners box; // pixels of the network's input
};

struct AssignerOptions {
    int topk = 10;
    double alpha = 0.5;
    double beta = 6.0;
};

struct Assignment {
    std::vector<int> target;         // per anchor point: the box it learns, or -1 (background)
    std::vector<float> alignedScore; // per anchor point: its class target (0 for background)
};

// One image: `scores` (anchors x classes, after the sigmoid) and `predicted` boxes in pixels,
// anchor points in cells (their centres times their strides are pixels). Ties in the ranking
// go to the lower anchor index (torch.topk leaves their order open).
Assignment assignTargets(const std::vector<float>& scores, int classes,
                         const std::vector<Corners>& predicted,
                         const std::vector<AnchorPoint>& points,
                         const std::vector<TargetBox>& targets,
                         const AssignerOptions& options = {});

} // namespace tb::detect

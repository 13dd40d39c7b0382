// Complete IoU (Zheng et al. 2020) of two corner boxes, as Ultralytics' bbox_iou(..., CIoU=True)
// computes it (its eps terms included), and its gradient with respect to the first box, with
// the trade-off alpha held constant as Ultralytics holds it (computed under no_grad).
#pragma once

#include <array>

namespace tb::detect {

struct CiouResult {
    double value;
    std::array<double, 4> gradFirst; // d value / d (x1, y1, x2, y2) of the first box
};

// Boxes as (x1, y1, x2, y2).
CiouResult ciou(const std::array<double, 4>& first, const std::array<double, 4>& second);

} // namespace tb::detect

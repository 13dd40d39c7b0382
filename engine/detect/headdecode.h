// What a detector's head output (DetectOutput: per image, 4 reg_max + classes rows by anchors)
// says, as Ultralytics' Detect decodes it in inference: anchor points at the cell centres of
// each map, each side's distance the expectation of its reg_max-bin distribution (DFL), boxes
// in pixels, class scores through a sigmoid; then non-maximum suppression as its
// non_max_suppression does it (torchvision's nms per class).
#pragma once

#include <cstdint>
#include <vector>

namespace tb::detect {

struct AnchorPoint {
    float x, y;   // the cell's centre, in cells (0.5, 1.5, ...)
    float stride; // pixels per cell
};

// The anchor points of maps of these sizes (heights[i] x widths[i] at strides[i]), map by map,
// each row-major: the order of DetectOutput's columns.
std::vector<AnchorPoint> anchorPoints(const std::vector<int64_t>& heights,
                                      const std::vector<int64_t>& widths,
                                      const std::vector<int64_t>& strides);

struct Corners {
    float x1, y1, x2, y2;
};

struct ScoredBox {
    Corners box; // pixels of the network's input
    int category;
    float score;
};

struct NmsOptions {
    float confidence = 0.001f; // candidates scoring above it (validation's; prediction uses 0.25)
    float iou = 0.7f;          // a box overlapping a better one of its class more is dropped
    int maxDetections = 300;   // per image, after suppression
    bool multiLabel = true;    // every class above `confidence` a candidate, not only the best
    int maxCandidates = 30000; // the best this many enter the suppression
};

// The box anchor `a` predicts, from one image's head output `head` (rows x anchors, row-major).
Corners decodeBox(const float* head, int64_t anchors, int64_t a, int regMax,
                  const AnchorPoint& point);

// One image's detections: decoded, filtered by confidence, suppressed per class, best first.
std::vector<ScoredBox> detectionsOf(const float* head, int64_t anchors, int regMax, int classes,
                                    const std::vector<AnchorPoint>& points,
                                    const NmsOptions& options);

// torchvision.ops.nms on boxes of one class: indices of the kept boxes, best score first
// (ties in the order given); a box whose IoU with a kept better one exceeds `iou` is dropped.
std::vector<std::size_t> nonMaxSuppression(const std::vector<Corners>& boxes,
                                           const std::vector<float>& scores, float iou);

} // namespace tb::detect

// Detection's objective inside the trainer: a detector's head output (DetectOutput's (N, 4
// reg_max + classes, anchors)) comes to the host, where YOLOv8's loss and its gradient are
// computed against the batch's box rows (detect/detectionloss.h), and the gradient goes back
// to the device. The assigner's sorting and matching is branchy host work in Ultralytics too
// (on the GPU there, but per box); here it costs a copy of the head each way per step.
#pragma once

#include "backend/backend.h"
#include "detect/detectionloss.h"
#include "detect/headdecode.h"
#include "nn/detecthead.h"

#include <vector>

namespace tb {

class DetectionObjective {
public:
    // `head`: the model's DetectOutput; `side`: the square input's side in pixels; `options`:
    // the loss's gains and the assigner's settings.
    DetectionObjective(const DetectOutput& head, int64_t side,
                       const detect::DetectionLossOptions& options = {});

    // The batch's loss terms for `head` (the model's output on the device, any float dtype)
    // against `boxRows` (host f32 (N, rows, 6): class, x1, y1, x2, y2, crowd; class -1 unused).
    // With `dhead`, writes there d (box + cls + dfl) x N x gradScale / d head, as Ultralytics
    // scales its loss by the batch size; crowd regions are not learned.
    detect::DetectionLossTerms loss(Backend& backend, const Tensor& head, const Tensor& boxRows,
                                    Tensor* dhead = nullptr, double gradScale = 1.0);

    // Each image's detections (validation: NMS at confidence 0.001, IoU 0.7, at most 300).
    std::vector<std::vector<detect::ScoredBox>> detections(Backend& backend, const Tensor& head,
                                                           const detect::NmsOptions& options);

    int classes() const { return m_classes; }

private:
    const float* toHost(Backend& backend, const Tensor& head);

    int m_regMax, m_classes;
    std::vector<detect::AnchorPoint> m_points;
    detect::DetectionLossOptions m_options;
    Tensor m_f32, m_host, m_gradHost, m_gradDevice; // reused between steps
};

// The box rows of image `i` of a batch as the loss's targets (crowd regions left out).
std::vector<detect::TargetBox> targetsOf(const float* rows, int64_t rowCount);

} // namespace tb

// A detector's validation pass: the loss's terms over the split, every image's detections
// (NMS as Ultralytics validates: confidence 0.001, IoU 0.7, at most 300) scored by COCO's
// evaluation against the split's boxes in the network's input pixels (crowd regions ignored
// as COCO ignores them).
#pragma once

#include "data/dataloader.h"
#include "detect/cocoeval.h"
#include "events/events.h"
#include "nn/graph.h"
#include "train/detectionobjective.h"

#include <optional>
#include <stop_token>

namespace tb {

// What a pass over a split collects: its boxes and the model's detections, in the network's
// input pixels, images numbered from 0 in the split's order, and the loss's terms summed over
// its batches.
struct DetectionPass {
    std::vector<detect::GroundTruth> truth;
    std::vector<detect::Detection> detections;
    int64_t images = 0, batches = 0;
    detect::DetectionLossTerms lossSum;
};

// Runs `loader`'s split through the model (eval mode). nullopt when stopped before the end.
std::optional<DetectionPass> detectionPass(Backend& backend, Graph& graph, DataLoader& loader,
                                           DetectionObjective& objective, Tensor& deviceInputs,
                                           std::stop_token& stop);

// COCO's evaluation of a pass, as its report.
DetectionReport reportOf(const DetectionPass& pass, const std::vector<std::string>& classNames);

// Fills epoch.valLoss (the mean of box + cls + dfl over batches), epoch.valAcc (mAP50-95) and
// epoch.validation.detection. Returns false when stopped before the end.
bool validateDetection(Backend& backend, Graph& graph, DataLoader& loader,
                       DetectionObjective& objective, Tensor& deviceInputs, EpochEvent& epoch,
                       std::stop_token& stop);

// What picks the best epoch (and best.safetensors): a detector's fitness as Ultralytics picks
// best.pt, 0.1 mAP50 + 0.9 mAP50-95; a segmentation's mean IoU; any other model's validation
// accuracy.
double fitnessOf(const EpochEvent& epoch);

// The report of COCO's evaluation (detect/cocoeval.h) with Ultralytics' precision and recall:
// where the IoU-0.5 precision-recall curve's F1 is best, per class and averaged.
DetectionReport detectionReport(const detect::CocoEvalResult& result,
                                const std::vector<std::string>& classNames);

} // namespace tb

// A segmentation's validation pass: the per-pixel loss over the split and the confusion matrix
// over every counted pixel (each batch's logits read back to the host for the argmax), scored as
// torchvision's reference scripts score it (segment/segmentationconfusion.h).
#pragma once

#include "data/dataloader.h"
#include "events/events.h"
#include "nn/graph.h"

#include <stop_token>

namespace tb {

// VOC's and torchvision's ignore index: pixels labelled so count in no loss and no score.
inline constexpr int32_t kIgnoreIndex = 255;

// Pixels of `labels` (i32) that count: not the ignore index.
int64_t countedPixels(const Tensor& labels);

// Fills epoch.valLoss (the mean over counted pixels), epoch.valAcc (pixel accuracy) and
// epoch.validation.segmentation. Returns false when stopped before the end.
bool validateSegmentation(Backend& backend, Graph& graph, DataLoader& loader, Tensor& deviceInputs,
                          Tensor& deviceLabels, EpochEvent& epoch, std::stop_token& stop);

} // namespace tb

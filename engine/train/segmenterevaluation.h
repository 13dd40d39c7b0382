// `trainbench-cli evaluate` on a segmentation run: its checkpoint measured on the run's
// validation split as each epoch's validation measured it (the confusion matrix over every
// counted pixel, pixel accuracy, per-class IoU and accuracy, mean IoU, the worst images).
#pragma once

#include "events/events.h"

#include <cstdint>
#include <string>

namespace tb {

struct SegmenterEvaluation {
    std::string checkpoint;
    int imageSize = 0;
    double loss = 0.0; // the per-pixel cross-entropy's mean over the counted pixels
    SegmentationReport report;
};

// Loads the checkpoint on the CPU and runs its validation split through it, `batch` images at
// a time (0: the run's batch_size, which its images at their size fit). Throws ConfigError("model")
// for a model without per-pixel scores, and what TrainedModel and the dataset readers throw.
SegmenterEvaluation evaluateSegmenter(const std::string& checkpoint, int64_t batch, int threads);

} // namespace tb

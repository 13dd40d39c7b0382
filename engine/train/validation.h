// A validation pass over a whole split (mean loss over samples, accuracy, the confusion matrix
// and the first misclassified samples), and the staging of host batches on the device that it
// shares with the training loop.
#pragma once

#include "backend/backend.h"
#include "data/dataloader.h"
#include "events/events.h"
#include "nn/graph.h"

#include <stop_token>

namespace tb {

// `host` on the backend's device: host itself on the CPU, else copied into `device` (grown
// when too small, kept for the next batch).
const Tensor& stageOnDevice(Backend& backend, const Tensor& host, Tensor& device);

// The logits as plain f32 on the host (cast on the device first under bf16 or fp16), in `host`
// (grown when too small); `f32` holds the cast on the device.
const float* logitsOnHost(Backend& backend, const Tensor& logits, Tensor& f32, Tensor& host);

// Fills epoch.valLoss, valAcc and validation. Returns false when stopped before the end.
bool validate(Backend& backend, Graph& graph, DataLoader& loader, int64_t batchSize,
              Tensor& deviceInputs, Tensor& deviceLabels, EpochEvent& epoch, std::stop_token& stop);

} // namespace tb

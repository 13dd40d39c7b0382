// The weights for PyTorch users, as a .safetensors file of the model's state dict with no
// optimizer state: the ImageNet-style models carry torchvision's module names already, and
// every batch norm gets the num_batches_tracked buffer PyTorch keeps, so
// model.load_state_dict(safetensors.torch.load_file(path)) takes it with strict=True.
#pragma once

#include "export/modelcard.h"
#include "nn/graph.h"

#include <string>

namespace tb {

// Writes atomically; throws Error naming the path when it cannot.
void writeTorchWeights(Graph& graph, const ModelCard& card, const std::string& path);

} // namespace tb

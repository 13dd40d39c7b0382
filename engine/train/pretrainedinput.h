// What pretrained weights learned from, against what a run feeds them: torchvision's ImageNet
// weights (any PyTorch file, or a .safetensors file that is not a TrainBench checkpoint) saw
// 224 px RGB images normalised with ImageNet's statistics; a TrainBench checkpoint records its
// run's data. The run's log and the set-up's model panel show the differences.
#pragma once

#include "core/shape.h"
#include "train/runconfig.h"

#include <string>
#include <vector>

namespace tb {

// One sentence per difference that costs accuracy: an image side off by more than a quarter,
// or inputs normalised with other statistics. None without model.pretrained, for samples that
// are not images, or when the file cannot be read (loading it says why). `sample`: the run's
// sample shape, {C, H, W} for images.
std::vector<std::string> pretrainedInputWarnings(const RunConfig& config, const Shape& sample);

} // namespace tb

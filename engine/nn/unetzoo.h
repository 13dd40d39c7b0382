// A U-Net (Ronneberger et al. 2015) for segmentation as a spec: an encoder of double 3x3
// convolutions (batch norm, ReLU) halving the size `depth` times, a decoder that doubles it back
// by bilinear upsampling and joins each level's encoder map (the skip connections), and a 1x1
// convolution to a score per class and pixel. Same padding throughout, so the output has the
// input's size. Layer names follow the widely used PyTorch implementation (milesial's
// Pytorch-UNet): inc.double_conv.0, down1.maxpool_conv.1.double_conv.3, up2.conv..., outc.conv.
#pragma once

#include "core/shape.h"

#include <nlohmann/json.hpp>

namespace tb {

// Small enough to train from scratch on a CPU in minutes (milesial's is 64 wide, 4 deep).
inline constexpr int kUnetDefaultWidth = 16, kUnetDefaultDepth = 3;

// Options: "width" (the first level's channels, doubled at each level down) and "depth" (the
// halvings). Throws ConfigError("model.depth") when the input's sides do not halve that often.
nlohmann::json unetLayers(const Shape& input, const nlohmann::json& options);

} // namespace tb

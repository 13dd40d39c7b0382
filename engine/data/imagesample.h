// An image file as a model's input sample, for predictions on files (`trainbench-cli predict`):
// decoded, checked against the channels the model reads, and brought to its size by the
// evaluation transform of ImageFolder training (Resize(size * 8/7) + CenterCrop(size)): always
// for a model trained on an ImageFolder (its validation saw every image so), else only when
// the image is not the model's size already (a Fashion-MNIST or CIFAR image is taken as it is).
#pragma once

#include "core/shape.h"

#include <string>
#include <vector>

namespace tb {

// Pixels in [0, 1], sampleShape.numel() values in (C, H, W) order. Throws ConfigError("model")
// when the model does not read 1- or 3-channel images, DatasetError naming the file when it is
// not a PNG or JPEG, is damaged, or has colour where the model reads greyscale.
std::vector<float> imageFileSample(const std::string& path, const Shape& sampleShape,
                                   bool imageFolderModel);

} // namespace tb

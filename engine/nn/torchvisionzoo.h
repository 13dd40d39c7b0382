// torchvision's ImageNet ResNets as specs, with its module and parameter names (conv1.weight,
// layer1.0.bn1.running_mean, layer2.0.downsample.0.weight, fc.weight), so a state dict that
// torchvision saved loads by name and one saved here loads into torchvision.
#pragma once

#include <nlohmann/json.hpp>

namespace tb {

// resnet18 and resnet34 (basic blocks), resnet50 (bottleneck blocks with the stride on the 3x3
// convolution, torchvision's "v1.5"). The head averages the whole last feature map (what
// torchvision's AdaptiveAvgPool2d((1, 1)) does), so any input from 32 px up works. The final
// linear layer has out_features "CLASSES", filled in by modelSpec().
nlohmann::json torchvisionResnet(int depth);

} // namespace tb

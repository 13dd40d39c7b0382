// torchvision's ImageNet ResNets and MobileNetV2 as specs, with its module and parameter names
// (conv1.weight, layer1.0.bn1.running_mean, features.2.conv.1.0.weight, fc.weight), so a state
// dict that torchvision saved loads by name and one saved here loads into torchvision.
#pragma once

#include <nlohmann/json.hpp>

namespace tb {

// resnet18 and resnet34 (basic blocks), resnet50 (bottleneck blocks with the stride on the 3x3
// convolution, torchvision's "v1.5"). The head averages the whole last feature map (what
// torchvision's AdaptiveAvgPool2d((1, 1)) does), so any input from 32 px up works. The final
// linear layer has out_features "CLASSES", filled in by modelSpec().
nlohmann::json torchvisionResnet(int depth);

// mobilenet_v2 (Sandler et al. 2018, width 1.0): a 3x3 stem, 17 inverted residual blocks (1x1
// expansion, 3x3 depthwise, linear 1x1 projection; ReLU6 after the first two), a 1x1 to 1280
// channels, global average pooling and a dropout (p 0.2) + linear classifier.
nlohmann::json torchvisionMobileNetV2();

} // namespace tb

// torchvision's ImageNet ResNets, MobileNetV2 and VGG-11 with batch norm as specs, with its module
// and parameter names (conv1.weight, layer1.0.bn1.running_mean, features.2.conv.1.0.weight,
// fc.weight), so a state dict that torchvision saved loads by name and one saved here loads into
// torchvision.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <string>

namespace tb {

// Where a ResNet's last two stages end: the feature maps a segmentation head reads.
struct ResnetFeatures {
    std::string layer3, layer4; // the names of their last layers
    int64_t layer3Channels = 0, layer4Channels = 0;
};

// Appends a torchvision ResNet (18, 34 or 50) without its head, every name behind `prefix`
// ("backbone." in the segmentation models). replaceStrideWithDilation is torchvision's: for
// layer2..layer4, whether the stage keeps the map's size and dilates its 3x3 convolutions
// instead of striding ({false, true, true}: output stride 8, as FCN and DeepLabV3 use).
ResnetFeatures appendResnetStages(nlohmann::json& layers, int depth, const std::string& prefix,
                                  std::array<bool, 3> replaceStrideWithDilation);

// resnet18 and resnet34 (basic blocks), resnet50 (bottleneck blocks with the stride on the 3x3
// convolution, torchvision's "v1.5"). The head averages the whole last feature map (what
// torchvision's AdaptiveAvgPool2d((1, 1)) does), so any input from 32 px up works. The final
// linear layer has out_features "CLASSES", filled in by modelSpec().
nlohmann::json torchvisionResnet(int depth);

// mobilenet_v2 (Sandler et al. 2018, width 1.0): a 3x3 stem, 17 inverted residual blocks (1x1
// expansion, 3x3 depthwise, linear 1x1 projection; ReLU6 after the first two), a 1x1 to 1280
// channels, global average pooling and a dropout (p 0.2) + linear classifier.
nlohmann::json torchvisionMobileNetV2();

// vgg11_bn (Simonyan and Zisserman 2015, configuration A, with batch norm): eight 3x3
// convolutions (with biases) + BN + ReLU in five stages closed by 2x2 max pooling, adaptive
// average pooling to 7 x 7 (a 32 px input's 1 x 1 map is repeated 49 times, as torchvision
// does), and a classifier of two 4096-wide linear layers with ReLU and dropout (`dropout`,
// torchvision's 0.5) before the last.
nlohmann::json torchvisionVgg11Bn(float dropout);

} // namespace tb

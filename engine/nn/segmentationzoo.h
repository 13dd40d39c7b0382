// torchvision's segmentation models (torchvision.models.segmentation) as specs, with its module
// and parameter names, so that a torchvision state dict loads by name: fcn_resnet50 and
// deeplabv3_resnet50 on a ResNet-50 backbone whose last stages dilate instead of striding
// (backbone.layer4.2.conv2.weight), the head as `classifier` (FCNHead, or DeepLabHead's ASPP:
// classifier.0.convs.4.1.weight, classifier.4.weight) and, with model.aux_loss, an FCNHead on
// layer3 as `aux_classifier`. Both heads' scores are resized bilinearly to the input's size, as
// torchvision's forward does.
#pragma once

#include "core/shape.h"

#include <nlohmann/json.hpp>

#include <string>

namespace tb {

// torchvision weights the auxiliary head's loss by 0.5 (references/segmentation/train.py).
inline constexpr float kAuxiliaryLossWeight = 0.5f;

// Whether `model` is fcn_resnet50 or deeplabv3_resnet50.
bool isTorchvisionSegmentation(const std::string& model);

// The spec's layers and, with options["aux_loss"], its "auxiliary" outputs. Options:
// "aux_loss" (bool, false: torchvision's default without weights) and "output_stride" (8,
// torchvision's; 16 strides layer3 and dilates only layer4, and ASPP's rates halve to 6, 12,
// 18: a quarter of layer3's and layer4's activations, a coarser map). Throws ConfigError for
// other input ranks or options.
struct SegmentationSpec {
    nlohmann::json layers, auxiliary;
};
SegmentationSpec torchvisionSegmentation(const std::string& model, const Shape& input,
                                         const nlohmann::json& options);

} // namespace tb

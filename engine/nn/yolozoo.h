// YOLOv8's detectors (Ultralytics' yolov8.yaml) as model specs: the same modules under the same
// names (model.0.conv.weight, model.2.m.0.cv1.bn.running_mean, model.22.cv3.2.2.bias, ...), so
// that an Ultralytics state dict loads by name.
#pragma once

#include "core/shape.h"

#include <nlohmann/json.hpp>

#include <string>

namespace tb {

// Whether `name` is one of the family: yolov8n, yolov8s, yolov8m, yolov8l, yolov8x.
bool isYoloV8(const std::string& name);

// The layers of `name` for (3, H, W) images with H and W multiples of 32 and `classes` classes,
// ending in a DetectOutput at strides 8, 16 and 32. Throws ConfigError("model") otherwise.
nlohmann::json yoloV8Layers(const std::string& name, const Shape& input, int classes);

} // namespace tb

// The model zoo as specs: mlp, lenet5, fmnist-cnn, resnet20/32/56, vgg-small, and torchvision's
// resnet18/34/50, mobilenet_v2 and vgg11_bn (torchvisionzoo.h). A model name may also be the path
// of a user's spec file
// (*.json).
#pragma once

#include "core/shape.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tb {

struct ZooEntry {
    std::string name;
    std::string description;
    Shape defaultInput; // the sample shape it was designed for
};

const std::vector<ZooEntry>& modelZoo();
// The sample shape a zoo model was designed for; `fallback` for other names (spec files).
Shape zooInputShape(const std::string& name, const Shape& fallback);

// model.dropout where the config leaves it out: torchvision's 0.5 for the VGG classifiers
// (vgg-small, vgg11_bn), 0 for the others.
float defaultDropout(const std::string& model);

// Whether a `model` value names a spec file rather than a zoo model: a path ending in .json, or
// a pipe a shell hands over (/dev/fd/N from `--set model=<(generate)`, /proc/self/fd/N).
bool isModelSpecPath(const std::string& model);

// Options: "hidden" (mlp widths, e.g. "256,128"), "shortcut" ("A" parameter-free or "B"
// 1x1 conv), "dropout" (mlp, vgg-small, vgg11_bn), "freeze" (finetune.freeze: freezeLayers()).
// Throws ConfigError("model") for an unknown name or a bad option, listing what is known.
nlohmann::json modelSpec(const std::string& nameOrPath, const Shape& input, int classes,
                         const nlohmann::json& options = nlohmann::json::object());

} // namespace tb

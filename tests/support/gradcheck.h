// Finite-difference gradient checks for layers (Caffe's GradientChecker, in spirit): the loss
// is L = sum(output * r) for a fixed random r, so dL/doutput = r, and every input and parameter
// gradient from backward() is compared with central differences of L.
#pragma once

#include "backend/backend.h"
#include "nn/layer.h"

#include <string>
#include <vector>

namespace tb::test {

struct GradCheckResult {
    float worstRelativeError = 0.0f; // over all checked tensors, ||num - ana|| / ||num||
    std::string worstTensor;
};

// Checks layer (already constructed, not initialised) on inputs of the given shapes. Inputs are
// drawn away from zero by `minAbs` so kinks (ReLU, max pooling ties) are not straddled; a layer
// reading token ids gets small whole numbers, and only its parameters are checked.
GradCheckResult gradCheckLayer(Backend& backend, Layer& layer, const std::vector<Shape>& inputs,
                               uint64_t seed, float minAbs = 0.05f);

} // namespace tb::test

// The ONNX ops each layer type becomes, in evaluation mode: dropout vanishes, batch norm reads
// its running statistics (as BatchNormalization, not folded into the convolution), attention
// is spelled out in MatMul/Softmax with a causal mask. A layer ONNX cannot express exactly is
// an error naming the layer and the op, never an approximation.
#pragma once

#include "export/onnxbuilder.h"
#include "nn/layer.h"

#include <string>
#include <vector>

namespace tb {

struct OnnxLayer {
    Layer& layer;
    std::vector<std::string> inputs; // the ONNX values the layer reads
    std::vector<Shape> inputShapes;  // their shapes for a batch of one
    Shape output;                    // the layer's output for a batch of one
    int opset = 17;
};

// Emits the layer's nodes and returns the ONNX value holding its output. Parameters are
// initializers named "<layer>.<param>" (the model's state dict), already in the graph. Throws
// ConfigError("model") for a layer the exporter cannot write at this opset.
std::string emitOnnxLayer(OnnxGraphBuilder& g, const OnnxLayer& l);

} // namespace tb

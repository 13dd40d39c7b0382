// OnnxGraphBuilder: appends nodes, initializers and constants to an ONNX GraphProto (Debian's
// libonnx-dev messages) with unique value names, so the layer exporters write one line per op.
#pragma once

#include "core/tensor.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace tb {

// One node attribute: a whole number, a float, a list of whole numbers or a string.
struct OnnxAttribute {
    std::string name;
    enum class Kind { Int, Float, Ints, String } kind;
    int64_t i = 0;
    float f = 0.0f;
    std::vector<int64_t> ints;
    std::string s;

    static OnnxAttribute integer(std::string name, int64_t v) {
        return {std::move(name), Kind::Int, v, 0.0f, {}, {}};
    }
    static OnnxAttribute real(std::string name, float v) {
        return {std::move(name), Kind::Float, 0, v, {}, {}};
    }
    static OnnxAttribute list(std::string name, std::vector<int64_t> v) {
        return {std::move(name), Kind::Ints, 0, 0.0f, std::move(v), {}};
    }
    static OnnxAttribute text(std::string name, std::string v) {
        return {std::move(name), Kind::String, 0, 0.0f, {}, std::move(v)};
    }
};

// A dimension of a graph input or output: a fixed size, or a named one the runtime picks
// ("batch", "sequence").
struct OnnxDim {
    int64_t size = 0;
    std::string name; // set: a symbolic dimension
};

class OnnxGraphBuilder {
public:
    explicit OnnxGraphBuilder(onnx::GraphProto& graph) : m_graph(graph) {}

    // The graph's inputs and outputs, of an element type (onnx::TensorProto::FLOAT, INT64).
    void input(const std::string& name, int32_t elementType, const std::vector<OnnxDim>& dims);
    void output(const std::string& name, int32_t elementType, const std::vector<OnnxDim>& dims);

    // A node of `op` reading `inputs`; returns the name of its (single) output, derived from
    // `hint` (the layer's name) so the graph reads like the model.
    std::string node(const std::string& op, const std::vector<std::string>& inputs,
                     const std::string& hint, const std::vector<OnnxAttribute>& attributes = {});
    // The same for an op with several outputs (Split); returns their names.
    std::vector<std::string> nodeOutputs(const std::string& op,
                                         const std::vector<std::string>& inputs, int outputs,
                                         const std::string& hint,
                                         const std::vector<OnnxAttribute>& attributes = {});

    // A float initializer holding a host f32 tensor's values under `name` (a parameter's
    // qualified name, "layer1.0.conv1.weight").
    void parameter(const std::string& name, const Tensor& hostF32);
    // Constants, named after `hint`; returns their names.
    std::string floats(const std::string& hint, const std::vector<int64_t>& dims,
                       const std::vector<float>& values);
    std::string ints(const std::string& hint, const std::vector<int64_t>& values);
    // Renames a node output (and its uses), so the graph's last value is called "logits".
    void rename(const std::string& from, const std::string& to);

private:
    std::string uniqueName(const std::string& hint);

    onnx::GraphProto& m_graph;
    std::set<std::string> m_used;
};

} // namespace tb

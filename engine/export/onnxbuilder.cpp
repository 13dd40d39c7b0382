#include "export/onnxbuilder.h"

namespace tb {

std::string OnnxGraphBuilder::uniqueName(const std::string& hint) {
    std::string name = hint;
    for (int i = 1; m_used.count(name); ++i)
        name = hint + "_" + std::to_string(i);
    m_used.insert(name);
    return name;
}

namespace {

void describe(onnx::ValueInfoProto& v, const std::string& name, int32_t elementType,
              const std::vector<OnnxDim>& dims) {
    v.set_name(name);
    onnx::TypeProto_Tensor* t = v.mutable_type()->mutable_tensor_type();
    t->set_elem_type(elementType);
    for (const OnnxDim& d : dims) {
        onnx::TensorShapeProto_Dimension* dim = t->mutable_shape()->add_dim();
        if (d.name.empty())
            dim->set_dim_value(d.size);
        else
            dim->set_dim_param(d.name);
    }
}

} // namespace

void OnnxGraphBuilder::input(const std::string& name, int32_t elementType,
                             const std::vector<OnnxDim>& dims) {
    m_used.insert(name);
    describe(*m_graph.add_input(), name, elementType, dims);
}

void OnnxGraphBuilder::output(const std::string& name, int32_t elementType,
                              const std::vector<OnnxDim>& dims) {
    describe(*m_graph.add_output(), name, elementType, dims);
}

std::string OnnxGraphBuilder::node(const std::string& op, const std::vector<std::string>& inputs,
                                   const std::string& hint,
                                   const std::vector<OnnxAttribute>& attributes) {
    return nodeOutputs(op, inputs, 1, hint, attributes)[0];
}

std::vector<std::string>
OnnxGraphBuilder::nodeOutputs(const std::string& op, const std::vector<std::string>& inputs,
                              int outputs, const std::string& hint,
                              const std::vector<OnnxAttribute>& attributes) {
    onnx::NodeProto* n = m_graph.add_node();
    n->set_op_type(op);
    n->set_name(uniqueName(hint + "/" + op));
    for (const std::string& in : inputs)
        n->add_input(in);
    std::vector<std::string> names;
    for (int i = 0; i < outputs; ++i) {
        names.push_back(uniqueName(outputs == 1 ? hint : hint + "_" + std::to_string(i)));
        n->add_output(names.back());
    }
    for (const OnnxAttribute& a : attributes) {
        onnx::AttributeProto* p = n->add_attribute();
        p->set_name(a.name);
        switch (a.kind) {
        case OnnxAttribute::Kind::Int:
            p->set_type(onnx::AttributeProto::INT);
            p->set_i(a.i);
            break;
        case OnnxAttribute::Kind::Float:
            p->set_type(onnx::AttributeProto::FLOAT);
            p->set_f(a.f);
            break;
        case OnnxAttribute::Kind::Ints:
            p->set_type(onnx::AttributeProto::INTS);
            for (int64_t v : a.ints)
                p->add_ints(v);
            break;
        case OnnxAttribute::Kind::String:
            p->set_type(onnx::AttributeProto::STRING);
            p->set_s(a.s);
            break;
        }
    }
    return names;
}

void OnnxGraphBuilder::parameter(const std::string& name, const Tensor& hostF32) {
    onnx::TensorProto* t = m_graph.add_initializer();
    t->set_name(uniqueName(name));
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : hostF32.shape().dims())
        t->add_dims(d);
    // Raw little-endian bytes: the compact form, and the one every runtime reads fastest.
    t->set_raw_data(hostF32.data<float>(), hostF32.bytes());
}

std::string OnnxGraphBuilder::floats(const std::string& hint, const std::vector<int64_t>& dims,
                                     const std::vector<float>& values) {
    onnx::TensorProto* t = m_graph.add_initializer();
    t->set_name(uniqueName(hint));
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
        t->add_dims(d);
    for (float v : values)
        t->add_float_data(v);
    return t->name();
}

std::string OnnxGraphBuilder::ints(const std::string& hint, const std::vector<int64_t>& values) {
    onnx::TensorProto* t = m_graph.add_initializer();
    t->set_name(uniqueName(hint));
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values)
        t->add_int64_data(v);
    return t->name();
}

void OnnxGraphBuilder::rename(const std::string& from, const std::string& to) {
    for (onnx::NodeProto& n : *m_graph.mutable_node()) {
        for (std::string& in : *n.mutable_input())
            if (in == from)
                in = to;
        for (std::string& out : *n.mutable_output())
            if (out == from)
                out = to;
    }
    m_used.insert(to);
}

} // namespace tb

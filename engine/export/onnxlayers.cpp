#include "export/onnxlayers.h"

#include "core/errors.h"

#include <cmath>
#include <functional>
#include <limits>
#include <map>

namespace tb {

namespace {

using Attr = OnnxAttribute;
using Emitter = std::function<std::string(OnnxGraphBuilder&, const OnnxLayer&)>;

[[noreturn]] void cannotExport(const OnnxLayer& l, const std::string& why) {
    throw ConfigError("model", "cannot export layer '" + l.layer.name() + "' (" + l.layer.type() +
                                   ") to ONNX: " + why);
}

void needOpset(const OnnxLayer& l, int opset, const std::string& op) {
    if (l.opset < opset)
        cannotExport(l, op + " needs opset " + std::to_string(opset) + " or later, not " +
                            std::to_string(l.opset));
}

int64_t intOf(const OnnxLayer& l, const char* key) {
    return l.layer.options().value(key, 0);
}

std::string param(const OnnxLayer& l, const std::string& name) {
    return l.layer.name() + "." + name;
}

std::string linear(OnnxGraphBuilder& g, const OnnxLayer& l) {
    const nlohmann::json o = l.layer.options();
    const std::string owner = o.value("tie_weight", l.layer.name());
    const std::string w = owner + ".weight";
    const bool bias = o.value("bias", true);
    const std::string& name = l.layer.name();
    std::string x = l.inputs[0];
    if (l.inputShapes[0].rank() == 3) {
        // A sequence: the last dimension maps, as nn.Linear does; the weight is (out, in).
        const std::string wt =
            g.node("Transpose", {w}, name + ".weight_t", {Attr::list("perm", {1, 0})});
        std::string y = g.node("MatMul", {x, wt}, bias ? name + ".matmul" : name);
        return bias ? g.node("Add", {y, param(l, "bias")}, name) : y;
    }
    if (l.inputShapes[0].rank() != 2)
        x = g.node("Flatten", {x}, name + ".flatten", {Attr::integer("axis", 1)});
    std::vector<std::string> in{x, w};
    if (bias)
        in.push_back(param(l, "bias"));
    return g.node("Gemm", in, name, {Attr::integer("transB", 1)});
}

std::string conv2d(OnnxGraphBuilder& g, const OnnxLayer& l) {
    const int64_t k = intOf(l, "kernel"), s = intOf(l, "stride"), p = intOf(l, "padding");
    const nlohmann::json o = l.layer.options();
    const int64_t dilation = o.value("dilation", int64_t{1});
    std::vector<std::string> in{l.inputs[0], param(l, "weight")};
    if (o.value("bias", true))
        in.push_back(param(l, "bias"));
    return g.node("Conv", in, l.layer.name(),
                  {Attr::list("kernel_shape", {k, k}), Attr::list("strides", {s, s}),
                   Attr::list("pads", {p, p, p, p}), Attr::list("dilations", {dilation, dilation}),
                   Attr::integer("group", o.value("groups", int64_t{1}))});
}

std::string batchnorm(OnnxGraphBuilder& g, const OnnxLayer& l) {
    return g.node("BatchNormalization",
                  {l.inputs[0], param(l, "weight"), param(l, "bias"), param(l, "running_mean"),
                   param(l, "running_var")},
                  l.layer.name(), {Attr::real("epsilon", l.layer.options().value("eps", 1e-5f))});
}

std::string pool(OnnxGraphBuilder& g, const OnnxLayer& l, const char* op) {
    const int64_t k = intOf(l, "kernel"), s = intOf(l, "stride"), p = intOf(l, "padding");
    std::vector<Attr> attrs{Attr::list("kernel_shape", {k, k}), Attr::list("strides", {s, s}),
                            Attr::list("pads", {p, p, p, p})};
    if (std::string(op) == "AveragePool") // the engine divides by the whole window, padding too
        attrs.push_back(Attr::integer("count_include_pad", 1));
    return g.node(op, {l.inputs[0]}, l.layer.name(), attrs);
}

// AdaptiveAvgPool2d has no ONNX op. Its bins are one fixed window when the input divides into
// the output (AveragePool), and one pixel repeated when the input is a single pixel
// (torchvision's VGG head on a 32 px image: a nearest-neighbour Resize, which OpenCV reads and
// Expand it does not); anything else would be approximate.
std::string adaptivePool(OnnxGraphBuilder& g, const OnnxLayer& l) {
    const Shape& in = l.inputShapes[0];
    const int64_t h = in[2], w = in[3], oh = l.output[2], ow = l.output[3];
    if (h == oh && w == ow)
        return l.inputs[0];
    if (h % oh == 0 && w % ow == 0)
        return g.node("AveragePool", {l.inputs[0]}, l.layer.name(),
                      {Attr::list("kernel_shape", {h / oh, w / ow}),
                       Attr::list("strides", {h / oh, w / ow})});
    if (h == 1 && w == 1) // nearest-neighbour upsampling of one pixel is its copy
        return g.node("Resize",
                      {l.inputs[0], "",
                       g.floats(l.layer.name() + ".scales", {4},
                                {1.0f, 1.0f, static_cast<float>(oh), static_cast<float>(ow)})},
                      l.layer.name(), {OnnxAttribute::text("mode", "nearest")});
    cannotExport(l, "AdaptiveAvgPool2d from " + std::to_string(h) + "x" + std::to_string(w) +
                        " to " + std::to_string(oh) + "x" + std::to_string(ow) +
                        " has bins of unequal size, which ONNX's AveragePool cannot express; "
                        "train at an input size that is a multiple of the output");
}

// GELU has no ONNX op before opset 20: 0.5 x (1 + erf(x / sqrt 2)), or PyTorch's tanh form
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
std::string gelu(OnnxGraphBuilder& g, const OnnxLayer& l) {
    const std::string& name = l.layer.name();
    const std::string& x = l.inputs[0];
    const auto scalar = [&](const char* hint, float v) { return g.floats(name + hint, {}, {v}); };
    std::string inner;
    if (l.layer.options().value("approximate", "none") == "tanh") {
        const std::string x3 =
            g.node("Mul", {g.node("Mul", {x, x}, name + ".x2"), x}, name + ".x3");
        const std::string sum = g.node(
            "Add", {x, g.node("Mul", {x3, scalar(".c", 0.044715f)}, name + ".cx3")}, name + ".sum");
        inner = g.node("Tanh",
                       {g.node("Mul", {sum, scalar(".k", std::sqrt(2.0f / 3.14159265358979f))},
                               name + ".ksum")},
                       name + ".tanh");
    } else {
        inner = g.node(
            "Erf", {g.node("Mul", {x, scalar(".rsqrt2", 1.0f / std::sqrt(2.0f))}, name + ".xs")},
            name + ".erf");
    }
    const std::string onePlus = g.node("Add", {inner, scalar(".one", 1.0f)}, name + ".one_plus");
    const std::string half = g.node("Mul", {x, scalar(".half", 0.5f)}, name + ".half_x");
    return g.node("Mul", {half, onePlus}, name);
}

std::string relu6(OnnxGraphBuilder& g, const OnnxLayer& l) {
    const std::string& name = l.layer.name();
    return g.node(
        "Clip",
        {l.inputs[0], g.floats(name + ".min", {}, {0.0f}), g.floats(name + ".max", {}, {6.0f})},
        name);
}

// x sigmoid(x), as PyTorch's exporter writes nn.SiLU.
std::string silu(OnnxGraphBuilder& g, const OnnxLayer& l) {
    const std::string& name = l.layer.name();
    return g.node("Mul", {l.inputs[0], g.node("Sigmoid", {l.inputs[0]}, name + ".sigmoid")}, name);
}

// Nearest upsampling by a whole factor, as PyTorch exports nn.Upsample(mode='nearest'): output
// pixel i reads input floor(i / scale).
std::string upsample(OnnxGraphBuilder& g, const OnnxLayer& l) {
    const float s = static_cast<float>(intOf(l, "scale_factor"));
    const std::string& name = l.layer.name();
    return g.node("Resize", {l.inputs[0], "", g.floats(name + ".scales", {4}, {1.0f, 1.0f, s, s})},
                  name,
                  {OnnxAttribute::text("mode", "nearest"),
                   OnnxAttribute::text("coordinate_transformation_mode", "asymmetric"),
                   OnnxAttribute::text("nearest_mode", "floor")});
}

// Bilinear resizing with PyTorch's align_corners=False centres (half_pixel: the same centres
// for every size above 1), to sizes rather than scales, whose rounding could lose a row: the
// input's batch and channels (the batch may be dynamic) and the layer's height and width.
std::string resize(OnnxGraphBuilder& g, const OnnxLayer& l) {
    const std::string& name = l.layer.name();
    const std::string shape = g.node("Shape", {l.inputs[0]}, name + ".shape");
    const std::string batchAndChannels = g.node(
        "Slice", {shape, g.ints(name + ".from", {0}), g.ints(name + ".to", {2})}, name + ".nc");
    const std::string sizes =
        g.node("Concat", {batchAndChannels, g.ints(name + ".hw", {l.output[2], l.output[3]})},
               name + ".sizes", {Attr::integer("axis", 0)});
    return g.node("Resize", {l.inputs[0], "", "", sizes}, name,
                  {OnnxAttribute::text("mode", "linear"),
                   OnnxAttribute::text("coordinate_transformation_mode", "half_pixel")});
}

// He et al.'s option-A shortcut: every stride-th pixel, then zero channels on both sides.
std::string shortcutPad(OnnxGraphBuilder& g, const OnnxLayer& l) {
    const std::string& name = l.layer.name();
    const int64_t stride = intOf(l, "stride");
    const int64_t before = (l.output[1] - l.inputShapes[0][1]) / 2;
    const int64_t after = l.output[1] - l.inputShapes[0][1] - before;
    std::string x = l.inputs[0];
    if (stride > 1) {
        const int64_t end = std::numeric_limits<int64_t>::max();
        x = g.node("Slice",
                   {x, g.ints(name + ".starts", {0, 0}), g.ints(name + ".ends", {end, end}),
                    g.ints(name + ".axes", {2, 3}), g.ints(name + ".steps", {stride, stride})},
                   name + ".subsample");
    }
    return g.node("Pad", {x, g.ints(name + ".pads", {0, before, 0, 0, 0, after, 0, 0})}, name);
}

// A token embedding reads the int64 ids the graph takes.
std::string embedding(OnnxGraphBuilder& g, const OnnxLayer& l) {
    return g.node("Gather", {param(l, "weight"), l.inputs[0]}, l.layer.name(),
                  {Attr::integer("axis", 0)});
}

// The sequence's length t, as a one-element int64 tensor, from a (n, t, ...) value.
std::string lengthOf(OnnxGraphBuilder& g, const std::string& x, const std::string& hint) {
    return g.node("Shape", {x}, hint + ".t", {Attr::integer("start", 1), Attr::integer("end", 2)});
}

// x + wpe[:t]: the sequence may be shorter than the block the model trained on.
std::string positionEmbedding(OnnxGraphBuilder& g, const OnnxLayer& l) {
    needOpset(l, 15, "Shape with start and end");
    const std::string& name = l.layer.name();
    const std::string rows = g.node("Slice",
                                    {param(l, "weight"), g.ints(name + ".start", {0}),
                                     lengthOf(g, l.inputs[0], name), g.ints(name + ".axis", {0})},
                                    name + ".rows");
    return g.node("Add", {l.inputs[0], rows}, name);
}

std::string layerNorm(OnnxGraphBuilder& g, const OnnxLayer& l) {
    needOpset(l, 17, "LayerNormalization");
    return g.node(
        "LayerNormalization", {l.inputs[0], param(l, "weight"), param(l, "bias")}, l.layer.name(),
        {Attr::integer("axis", -1), Attr::real("epsilon", l.layer.options().value("eps", 1e-5f))});
}

// qkv (n, t, 3C) -> softmax(q k^T / sqrt(d) + causal mask) v -> (n, t, C), heads of d = C / h.
std::string attention(OnnxGraphBuilder& g, const OnnxLayer& l) {
    needOpset(l, 15, "Shape with start and end");
    const std::string& name = l.layer.name();
    const int64_t block = l.inputShapes[0][1];
    const int64_t width = l.output[2];
    const int64_t heads = intOf(l, "n_head");
    const int64_t headSize = width / heads;
    const std::vector<std::string> qkv =
        g.nodeOutputs("Split", {l.inputs[0], g.ints(name + ".split", {width, width, width})}, 3,
                      name + ".qkv", {Attr::integer("axis", 2)});
    const std::string headShape = g.ints(name + ".head_shape", {0, 0, heads, headSize});
    const auto heads_of = [&](const std::string& v, const char* hint, std::vector<int64_t> perm) {
        return g.node("Transpose", {g.node("Reshape", {v, headShape}, name + hint + "_heads")},
                      name + hint, {Attr::list("perm", std::move(perm))});
    };
    const std::string q = heads_of(qkv[0], ".q", {0, 2, 1, 3});
    const std::string kT = heads_of(qkv[1], ".k_t", {0, 2, 3, 1});
    const std::string v = heads_of(qkv[2], ".v", {0, 2, 1, 3});
    const std::string scores =
        g.node("Mul",
               {g.node("MatMul", {q, kT}, name + ".qk"),
                g.floats(name + ".scale", {}, {1.0f / std::sqrt(static_cast<float>(headSize))})},
               name + ".scores");
    // The mask of the whole block, cut to t x t: 0 on and below the diagonal, -inf above.
    std::vector<float> mask(static_cast<std::size_t>(block * block), 0.0f);
    for (int64_t i = 0; i < block; ++i)
        for (int64_t j = i + 1; j < block; ++j)
            mask[static_cast<std::size_t>(i * block + j)] = -std::numeric_limits<float>::infinity();
    const std::string t = lengthOf(g, l.inputs[0], name);
    const std::string tt = g.node("Concat", {t, t}, name + ".tt", {Attr::integer("axis", 0)});
    const std::string causal =
        g.node("Slice",
               {g.floats(name + ".mask", {block, block}, mask), g.ints(name + ".zero", {0, 0}), tt},
               name + ".causal");
    const std::string probs = g.node("Softmax", {g.node("Add", {scores, causal}, name + ".masked")},
                                     name + ".probs", {Attr::integer("axis", -1)});
    const std::string y = g.node("Transpose", {g.node("MatMul", {probs, v}, name + ".y_heads")},
                                 name + ".y_t", {Attr::list("perm", {0, 2, 1, 3})});
    return g.node("Reshape", {y, g.ints(name + ".shape", {0, 0, width})}, name);
}

const std::map<std::string, Emitter>& emitters() {
    static const std::map<std::string, Emitter> table = {
        {"linear", linear},
        {"conv2d", conv2d},
        {"batchnorm2d", batchnorm},
        {"relu",
         [](auto& g, const auto& l) { return g.node("Relu", {l.inputs[0]}, l.layer.name()); }},
        {"leakyrelu",
         [](auto& g, const auto& l) {
             return g.node("LeakyRelu", {l.inputs[0]}, l.layer.name(),
                           {Attr::real("alpha", l.layer.options().value("negative_slope", 0.01f))});
         }},
        {"relu6", relu6},
        {"gelu", gelu},
        {"silu", silu},
        {"maxpool2d", [](auto& g, const auto& l) { return pool(g, l, "MaxPool"); }},
        {"avgpool2d", [](auto& g, const auto& l) { return pool(g, l, "AveragePool"); }},
        {"globalavgpool",
         [](auto& g, const auto& l) {
             return g.node("GlobalAveragePool", {l.inputs[0]}, l.layer.name());
         }},
        {"adaptiveavgpool2d", adaptivePool},
        // Evaluation mode: dropout passes its input through, and no node is written for it
        // (OpenCV's importer refuses Identity).
        {"dropout", [](auto&, const auto& l) { return l.inputs[0]; }},
        {"flatten",
         [](auto& g, const auto& l) {
             return g.node("Flatten", {l.inputs[0]}, l.layer.name(), {Attr::integer("axis", 1)});
         }},
        {"add",
         [](auto& g, const auto& l) {
             return g.node("Add", {l.inputs[0], l.inputs[1]}, l.layer.name());
         }},
        {"shortcut_pad", shortcutPad},
        {"concat",
         [](auto& g, const auto& l) {
             return g.node("Concat", l.inputs, l.layer.name(), {Attr::integer("axis", 1)});
         }},
        {"upsample", upsample},
        {"resize", resize},
        {"channel_slice",
         [](auto& g, const auto& l) {
             const std::string& name = l.layer.name();
             return g.node("Slice",
                           {l.inputs[0], g.ints(name + ".starts", {intOf(l, "begin")}),
                            g.ints(name + ".ends", {intOf(l, "end")}), g.ints(name + ".axes", {1})},
                           name);
         }},
        // The head's raw output, as the engine returns it: each scale's map flattened to
        // (N, 4 reg_max + classes, H_i W_i) and joined along the anchors (decoding it is the
        // caller's: README, "A detector's ONNX output").
        {"detect_output",
         [](auto& g, const auto& l) {
             const std::string& name = l.layer.name();
             const std::string shape = g.ints(name + ".flat_shape", {0, 0, -1});
             std::vector<std::string> flat;
             for (std::size_t i = 0; i < l.inputs.size(); ++i)
                 flat.push_back(
                     g.node("Reshape", {l.inputs[i], shape}, name + ".flat" + std::to_string(i)));
             return g.node("Concat", flat, name, {Attr::integer("axis", 2)});
         }},
        {"embedding", embedding},
        {"position_embedding", positionEmbedding},
        {"layer_norm", layerNorm},
        {"causal_self_attention", attention},
    };
    return table;
}

} // namespace

std::string emitOnnxLayer(OnnxGraphBuilder& g, const OnnxLayer& l) {
    const auto it = emitters().find(l.layer.type());
    if (it == emitters().end())
        cannotExport(l, "the exporter has no ONNX form for this layer type");
    return it->second(g, l);
}

} // namespace tb

// Graph construction from a spec, forward and backward over the topological order.
#include "nn/graph.h"

#include "backend/kernels/random_math.h"
#include "nn/activation.h"
#include "nn/detecthead.h"
#include "nn/layerutil.h"

#include <algorithm>
#include <map>

namespace tb {

namespace {

// A dimension or class count: a whole number from 1 to kMaxLayerSize.
bool isSize(const nlohmann::json& v) {
    return v.is_number_integer() &&
           !(v.is_number_unsigned() && v.get<uint64_t>() > kMaxLayerSize) &&
           v.get<int64_t>() >= 1 && v.get<int64_t>() <= kMaxLayerSize;
}

} // namespace

struct Graph::Node {
    std::unique_ptr<Layer> layer;
    std::vector<int> inputs; // node indices; -1 is the graph input
    std::vector<std::string> inputNames;
    Shape unitShape; // output shape for batch 1
    Tensor outStorage;
    int gradSlot = -1;         // which shared gradient buffer holds grad (planGradients)
    Tensor fanoutStorage;      // a second gradient buffer when several consumers add into grad
    Tensor out, grad;          // views for the current batch
    bool gradSet = false;      // grad holds a value in this backward pass
    bool requiresGrad = false; // a parameter at or before this node: backward must reach it
    bool inPlace = false;      // a ReLU fused into its input's layer (fuseRelus)
};

Graph::Graph(const nlohmann::json& spec, Backend& backend, DType actDtype, uint64_t seed)
    : m_backend(backend), m_actDtype(actDtype) {
    if (!spec.is_object() || !spec.contains("layers") || !spec["layers"].is_array() ||
        spec["layers"].empty())
        throw ConfigError("model", "a model spec is an object with a non-empty \"layers\" array");
    if (spec.contains("name") && !spec["name"].is_string())
        throw ConfigError("model",
                          "the spec's \"name\" must be a string, got " + spec["name"].dump());
    m_name = spec.value("name", "custom");
    const nlohmann::json classes = spec.value("classes", nlohmann::json(10));
    if (!isSize(classes))
        throw ConfigError("model", "\"classes\" must be a whole number from 1 to " +
                                       std::to_string(kMaxLayerSize) + ", got " + classes.dump());
    m_classes = classes.get<int>();
    if (!spec.contains("input") || !spec["input"].is_array())
        throw ConfigError("model", "the spec needs \"input\": the sample shape, e.g. [1, 28, 28]");
    std::vector<int64_t> dims;
    for (const auto& d : spec["input"]) {
        if (!isSize(d))
            throw ConfigError("model", "\"input\" must list sizes from 1 to " +
                                           std::to_string(kMaxLayerSize) + ", got " + d.dump());
        dims.push_back(d.get<int64_t>());
    }
    m_inputShape = Shape(dims);

    std::map<std::string, int> byName{{"input", -1}};
    int index = 0;
    for (const auto& ls : spec["layers"]) {
        auto node = std::make_unique<Node>();
        node->layer = createLayer(ls);
        if (ls.contains("name") && !ls["name"].is_string())
            layerError(layerLabel(ls), "\"name\" must be a string, got " + ls["name"].dump());
        const std::string name =
            ls.value("name", node->layer->type() + "_" + std::to_string(index));
        if (byName.count(name))
            throw ConfigError("model", "two layers are named " + quoteUserData(name));
        node->layer->setName(name);
        if (ls.contains("frozen")) {
            if (!ls["frozen"].is_boolean())
                layerError(name, "\"frozen\" must be true or false, got " + ls["frozen"].dump());
            node->layer->setFrozen(ls["frozen"].get<bool>());
        }
        std::vector<std::string> inputNames;
        if (ls.contains("inputs")) {
            if (!ls["inputs"].is_array())
                layerError(name,
                           "\"inputs\" must be a list of layer names, got " + ls["inputs"].dump());
            for (const auto& in : ls["inputs"]) {
                if (!in.is_string())
                    layerError(name, "\"inputs\" must hold layer names, got " + in.dump());
                inputNames.push_back(in.get<std::string>());
            }
        } else {
            inputNames.push_back(index == 0 ? "input" : m_nodes.back()->layer->name());
        }
        if (static_cast<int>(inputNames.size()) != node->layer->inputCount())
            layerError(name, "takes " + std::to_string(node->layer->inputCount()) +
                                 " input(s), the spec gives " + std::to_string(inputNames.size()));
        for (const auto& in : inputNames) {
            const auto it = byName.find(in);
            if (it == byName.end())
                layerError(name, "input " + quoteUserData(in) + " is not an earlier layer");
            node->inputs.push_back(it->second);
        }
        node->inputNames = inputNames;
        const bool readsInput =
            std::find(node->inputs.begin(), node->inputs.end(), -1) != node->inputs.end();
        if (readsInput && node->layer->readsTokenIds()) {
            if (m_inputShape.rank() != 1)
                layerError(name,
                           "reads token ids: the spec's \"input\" must be [block_size], got " +
                               m_inputShape.toString());
            m_inputIsTokenIds = true;
        }
        if (!node->layer->tiedTo().empty())
            tieWeight(*node, byName);
        const auto inShapes = inputShapesOf(*node, 1);
        node->unitShape = node->layer->outputShape(inShapes);
        node->layer->init(backend, inShapes, math::mix64(seed, static_cast<uint64_t>(index)));
        // Like autograd, skip gradients that no parameter needs (e.g. through a leading flatten
        // or a frozen backbone).
        node->requiresGrad = !node->layer->params().empty() && !node->layer->frozen();
        for (int i : node->inputs)
            if (i >= 0 && m_nodes[static_cast<std::size_t>(i)]->requiresGrad) {
                // Backward through a frozen layer would need what its evaluation-mode forward
                // does not keep (batch statistics): only the layers before any that train
                // may be frozen.
                if (node->layer->frozen())
                    layerError(name, "is frozen but reads " +
                                         quoteUserData(
                                             m_nodes[static_cast<std::size_t>(i)]->layer->name()) +
                                         ", which trains: freeze only a model's first layers");
                node->requiresGrad = true;
            }
        byName[name] = index++;
        m_nodes.push_back(std::move(node));
    }
    for (const auto& node : m_nodes)
        if (m_inputIsTokenIds && !node->layer->readsTokenIds() &&
            std::find(node->inputs.begin(), node->inputs.end(), -1) != node->inputs.end())
            layerError(node->layer->name(), "reads the token ids, which only an embedding can");
    const Shape last = m_nodes.back()->unitShape;
    if (const auto* head = dynamic_cast<const DetectOutput*>(m_nodes.back()->layer.get())) {
        if (head->classes() != m_classes)
            layerError(head->name(), "predicts " + std::to_string(head->classes()) +
                                         " classes, the spec's \"classes\" says " +
                                         std::to_string(m_classes));
        m_detectHead = head;
        m_positions = last[2];
    } else if (last.rank() == 3 && last[2] == m_classes) {
        m_positions = last[1];
    } else if (last.rank() == 4 && last[1] == m_classes) {
        m_positions = last[2] * last[3];
        m_pixelLogits = true;
    } else if (last.rank() != 2 || last[1] != m_classes) {
        throw ConfigError("model", "the last layer must output (N, " + std::to_string(m_classes) +
                                       ") logits, (N, T, " + std::to_string(m_classes) +
                                       ") for a language model, or (N, " +
                                       std::to_string(m_classes) +
                                       ", H, W) for segmentation; it outputs " + last.toString());
    }
    readAuxiliaryOutputs(spec, byName);
    fuseRelus();
    planGradients();
}

void Graph::readAuxiliaryOutputs(const nlohmann::json& spec,
                                 const std::map<std::string, int>& byName) {
    if (!spec.contains("auxiliary"))
        return;
    const nlohmann::json& list = spec["auxiliary"];
    if (!list.is_array())
        throw ConfigError("model", "\"auxiliary\" must be a list of {\"output\": layer, "
                                   "\"weight\": w}, got " +
                                       list.dump());
    for (const auto& entry : list) {
        if (!entry.is_object() || !entry.contains("output") || !entry["output"].is_string())
            throw ConfigError("model", "an \"auxiliary\" entry names its layer as "
                                       "{\"output\": layer, \"weight\": w}, got " +
                                           entry.dump());
        AuxiliaryOutput aux{entry["output"].get<std::string>(), 1.0f};
        const auto it = byName.find(aux.name);
        if (it == byName.end() || it->second < 0)
            throw ConfigError("model", "auxiliary output " + quoteUserData(aux.name) +
                                           " is not a layer of the model");
        if (entry.contains("weight")) {
            if (!entry["weight"].is_number() || entry["weight"].get<double>() <= 0.0)
                throw ConfigError("model", "auxiliary output " + quoteUserData(aux.name) +
                                               ": \"weight\" must be a number above 0, got " +
                                               entry["weight"].dump());
            aux.weight = entry["weight"].get<float>();
        }
        const Node& node = *m_nodes[static_cast<std::size_t>(it->second)];
        if (it->second + 1 == static_cast<int>(m_nodes.size()) ||
            !(node.unitShape == m_nodes.back()->unitShape))
            layerError(aux.name, "is an auxiliary output: it must be another layer than the "
                                 "last, shaped like the logits " +
                                     m_nodes.back()->unitShape.toString() + ", not " +
                                     node.unitShape.toString());
        m_auxiliary.push_back(aux);
        m_auxiliaryNodes.push_back(it->second);
    }
}

void Graph::tieWeight(Node& node, const std::map<std::string, int>& byName) {
    const std::string& source = node.layer->tiedTo();
    const auto it = byName.find(source);
    if (it == byName.end() || it->second < 0)
        layerError(node.layer->name(),
                   "ties its weight to " + quoteUserData(source) + ", not an earlier layer");
    for (Param* p : m_nodes[static_cast<std::size_t>(it->second)]->layer->params())
        if (p->name == "weight") {
            node.layer->tie(*p);
            return;
        }
    layerError(node.layer->name(),
               "ties its weight to " + quoteUserData(source) + ", which has no weight");
}

// A ReLU that alone consumes the output of a layer able to apply it (batch norm, the residual
// add) is folded into that layer, which then writes max(y, 0) and, backward, masks the incoming
// gradient where that output is zero: a pass over the activation fewer each way. The ReLU's
// output and gradient are the layer's buffers (PyTorch's inplace=True).
void Graph::fuseRelus() {
    std::vector<int> consumers(m_nodes.size(), 0);
    for (const auto& node : m_nodes)
        for (int i : node->inputs)
            if (i >= 0)
                ++consumers[static_cast<std::size_t>(i)];
    for (auto& node : m_nodes) {
        const auto* relu = dynamic_cast<const ActivationLayer*>(node->layer.get());
        const int input = node->inputs[0];
        if (!relu || relu->kind() != Activation::ReLU || input < 0 ||
            consumers[static_cast<std::size_t>(input)] != 1)
            continue;
        Layer& producer = *m_nodes[static_cast<std::size_t>(input)]->layer;
        if (!producer.canFuseRelu())
            continue;
        producer.fuseRelu();
        node->inPlace = true;
    }
}

// Gradients live only from the backward step of a node's last consumer to the node's own, so
// a handful of buffers serve the whole pass (a chain needs two). Replays the backward order and
// hands each gradient a free buffer that is large enough, or a new one.
void Graph::planGradients() {
    std::vector<int> freeSlots;
    const auto allocate = [&](Node& node) {
        const int64_t units = node.unitShape.numel();
        auto best = freeSlots.end();
        for (auto it = freeSlots.begin(); it != freeSlots.end(); ++it)
            if (m_slotUnits[static_cast<std::size_t>(*it)] >= units &&
                (best == freeSlots.end() || m_slotUnits[static_cast<std::size_t>(*it)] <
                                                m_slotUnits[static_cast<std::size_t>(*best)]))
                best = it;
        if (best != freeSlots.end()) {
            node.gradSlot = *best;
            freeSlots.erase(best);
        } else {
            node.gradSlot = static_cast<int>(m_slotUnits.size());
            m_slotUnits.push_back(units);
        }
    };
    allocate(*m_nodes.back());
    // The loss writes an auxiliary output's gradient before the pass: its buffer is held from
    // the start until that output's own backward step.
    for (int i : m_auxiliaryNodes)
        if (m_nodes[static_cast<std::size_t>(i)]->requiresGrad)
            allocate(*m_nodes[static_cast<std::size_t>(i)]);
    for (auto it = m_nodes.rbegin(); it != m_nodes.rend(); ++it) {
        Node& node = **it;
        if (node.gradSlot < 0)
            continue; // never receives a gradient
        // A fused ReLU: its layer's backward applies the mask, so the gradient passes through.
        if (node.inPlace) {
            Node& src = *m_nodes[static_cast<std::size_t>(node.inputs[0])];
            if (src.requiresGrad)
                src.gradSlot = node.gradSlot;
            else
                freeSlots.push_back(node.gradSlot);
            continue;
        }
        for (int i : node.inputs) {
            if (i < 0)
                continue;
            Node& src = *m_nodes[static_cast<std::size_t>(i)];
            if (src.requiresGrad && src.gradSlot < 0)
                allocate(src);
        }
        freeSlots.push_back(node.gradSlot); // its backward has consumed it
    }
}

Graph::~Graph() = default;

std::vector<Shape> Graph::inputShapesOf(const Node& node, int64_t n) const {
    std::vector<Shape> shapes;
    for (int i : node.inputs) {
        Shape s =
            i < 0 ? m_inputShape.withBatch(1) : m_nodes[static_cast<std::size_t>(i)]->unitShape;
        s[0] = n;
        shapes.push_back(s);
    }
    return shapes;
}

void Graph::ensureBuffers(int64_t n) {
    if (n > m_capacity) {
        m_inputStorage = m_backend.empty(m_inputShape.withBatch(n), m_actDtype);
        // The cast input is the data batch in another dtype: plain, like the batch itself.
        m_inputStorage.buffer()->allowBackendLayouts(false);
        for (auto& node : m_nodes) {
            Shape s = node->unitShape;
            s[0] = n;
            node->outStorage = node->inPlace
                                   ? m_nodes[static_cast<std::size_t>(node->inputs[0])]->outStorage
                                   : m_backend.empty(s, m_actDtype);
            node->fanoutStorage = Tensor(); // reallocated at the new size when first needed
        }
        m_slotStorage.clear();
        for (int64_t units : m_slotUnits)
            m_slotStorage.push_back(m_backend.empty({n * units}, m_actDtype));
        Shape logits = m_nodes.back()->unitShape;
        logits[0] = n;
        m_logitsGradStorage = m_backend.empty(logits, m_actDtype);
        m_capacity = n;
    }
    if (n == m_batch)
        return;
    for (auto& node : m_nodes) {
        Shape s = node->unitShape;
        s[0] = n;
        node->out = node->outStorage.slice(0, n).view(s);
        if (node->gradSlot >= 0)
            node->grad = Tensor(m_slotStorage[static_cast<std::size_t>(node->gradSlot)].buffer(), s,
                                m_actDtype);
    }
    m_batch = n;
}

const Tensor& Graph::forward(const Tensor& x, bool training) {
    const int64_t n = x.dim(0);
    if (!(x.shape().dropBatch() == m_inputShape))
        throw ConfigError("model", "input of shape " + x.shape().dropBatch().toString() +
                                       " does not match the model's input " +
                                       m_inputShape.toString());
    if (x.device() != m_backend.device())
        throw Error("input on " + x.device().toString() + " but the model is on " +
                    m_backend.device().toString());
    ensureBuffers(n);
    // The input is data and stays plain: marked so, the backend knows which layers read the
    // batch (a convolution there computes no data gradient) and counts its reorders as input.
    x.buffer()->allowBackendLayouts(false);
    m_input = x;
    if (m_inputIsTokenIds && x.dtype() != DType::F32)
        throw Error("token ids must come as f32 whole numbers, got " +
                    std::string(dtypeName(x.dtype())));
    if (x.dtype() != m_actDtype && !m_inputIsTokenIds) {
        m_input = m_inputStorage.slice(0, n);
        m_backend.cast(x, m_input);
        if (m_timeline)
            m_timeline->mark("input cast", SpanKind::Phase);
    }
    for (auto& node : m_nodes) {
        if (node->inPlace)
            continue; // its input's layer applied it
        Inputs in;
        for (int i : node->inputs)
            in.push_back(i < 0 ? &m_input : &m_nodes[static_cast<std::size_t>(i)]->out);
        if (m_timeline)
            m_backend.pushRange(node->layer->name());
        node->layer->forward(m_backend, in, node->out, training);
        if (m_timeline) {
            m_backend.popRange();
            m_timeline->mark(node->layer->name(), SpanKind::Forward);
        }
    }
    return m_nodes.back()->out;
}

Tensor& Graph::logitsGrad() {
    m_logitsGrad = m_logitsGradStorage.slice(0, m_batch);
    return m_logitsGrad;
}

const Tensor& Graph::auxiliaryLogits(std::size_t i) const {
    return m_nodes[static_cast<std::size_t>(m_auxiliaryNodes.at(i))]->out;
}

bool Graph::auxiliaryTrains(std::size_t i) const {
    return m_nodes[static_cast<std::size_t>(m_auxiliaryNodes.at(i))]->gradSlot >= 0;
}

Tensor& Graph::auxiliaryGrad(std::size_t i) {
    Node& node = *m_nodes[static_cast<std::size_t>(m_auxiliaryNodes.at(i))];
    if (node.gradSlot < 0)
        throw Error("auxiliary output " + node.layer->name() +
                    " has no gradient: nothing "
                    "before it trains");
    return node.grad;
}

void Graph::backward(const Tensor& dlogits, bool auxiliaryGradsSet) {
    for (auto& node : m_nodes)
        node->gradSet = false;
    Node& last = *m_nodes.back();
    m_backend.copy(dlogits, last.grad);
    last.gradSet = true;
    if (auxiliaryGradsSet)
        for (int i : m_auxiliaryNodes)
            m_nodes[static_cast<std::size_t>(i)]->gradSet =
                m_nodes[static_cast<std::size_t>(i)]->gradSlot >= 0;
    for (auto it = m_nodes.rbegin(); it != m_nodes.rend(); ++it) {
        Node& node = **it;
        if (!node.gradSet || !node.requiresGrad)
            continue; // nothing downstream depends on it, or nothing upstream learns
        // A fused ReLU: same buffer as its input's gradient, and that layer applies the mask.
        if (node.inPlace) {
            m_nodes[static_cast<std::size_t>(node.inputs[0])]->gradSet = true;
            continue;
        }
        Inputs in;
        std::vector<Tensor*> din;
        std::vector<Tensor> temps;
        temps.reserve(node.inputs.size());
        for (int i : node.inputs) {
            if (i < 0) {
                in.push_back(&m_input);
                din.push_back(nullptr);
                continue;
            }
            Node& src = *m_nodes[static_cast<std::size_t>(i)];
            in.push_back(&src.out);
            if (!src.requiresGrad) {
                din.push_back(nullptr);
            } else if (!src.gradSet) {
                din.push_back(&src.grad);
            } else {
                // A second consumer: its share goes to a buffer kept for this, then is added.
                if (!src.fanoutStorage.defined())
                    src.fanoutStorage =
                        m_backend.empty({m_capacity * src.unitShape.numel()}, m_actDtype);
                temps.push_back(Tensor(src.fanoutStorage.buffer(), src.grad.shape(), m_actDtype));
                din.push_back(&temps.back());
            }
        }
        if (m_timeline)
            m_backend.pushRange(node.layer->name() + " backward");
        node.layer->backward(m_backend, in, node.out, node.grad, din);
        if (m_backwardHook)
            m_backwardHook(*node.layer);
        std::size_t t = 0;
        for (std::size_t k = 0; k < node.inputs.size(); ++k) {
            const int i = node.inputs[k];
            if (i < 0)
                continue;
            Node& src = *m_nodes[static_cast<std::size_t>(i)];
            if (!din[k])
                continue;
            if (din[k] == &src.grad) {
                src.gradSet = true;
            } else {
                m_backend.add(src.grad, temps[t++], src.grad);
            }
        }
        if (m_timeline) {
            m_backend.popRange();
            m_timeline->mark(node.layer->name(), SpanKind::Backward);
        }
    }
}

void Graph::zeroGrad() {
    for (Param* p : params())
        m_backend.fill(p->grad, 0.0f);
}

std::vector<Param*> Graph::params() {
    std::vector<Param*> out;
    for (auto& node : m_nodes)
        if (!node->layer->frozen())
            for (Param* p : node->layer->params())
                out.push_back(p);
    return out;
}

std::vector<NamedTensor> Graph::stateDict() {
    std::vector<NamedTensor> out;
    for (auto& node : m_nodes) {
        const std::string& prefix = node->layer->name();
        for (Param* p : node->layer->params())
            out.push_back({prefix + "." + p->name, &p->value});
        for (const StateBuffer& b : node->layer->buffers())
            out.push_back({prefix + "." + b.name, b.value});
    }
    return out;
}

int64_t Graph::parameterCount() const {
    int64_t total = 0;
    for (const auto& node : m_nodes)
        for (Param* p : node->layer->params())
            total += p->value.numel();
    return total;
}

int64_t Graph::trainableParameterCount() const {
    int64_t total = 0;
    for (const auto& node : m_nodes)
        if (!node->layer->frozen())
            for (Param* p : node->layer->params())
                total += p->value.numel();
    return total;
}

std::vector<LayerRow> Graph::summary(int64_t batch) const {
    std::vector<LayerRow> rows;
    for (const auto& node : m_nodes) {
        LayerRow r;
        r.name = node->layer->name();
        r.type = node->layer->type();
        r.inputs = node->inputNames;
        const auto in = inputShapesOf(*node, batch);
        r.output = node->layer->outputShape(in);
        for (Param* p : node->layer->params())
            r.params += p->value.numel();
        r.flops = node->layer->flops(in);
        // A fused ReLU's output is its input's buffer.
        r.inPlace = node->inPlace;
        r.frozen = node->layer->frozen();
        r.activationBytes =
            (node->inPlace ? 0 : r.output.numel() * static_cast<int64_t>(dtypeSize(m_actDtype))) +
            node->layer->savedBytes(in);
        rows.push_back(std::move(r));
    }
    return rows;
}

int64_t Graph::gradientBufferBytes(int64_t batch) const {
    int64_t units = m_nodes.back()->unitShape.numel(); // the logits' gradient
    for (int64_t slot : m_slotUnits)
        units += slot;
    std::vector<int> consumers(m_nodes.size(), 0);
    for (const auto& node : m_nodes)
        for (int i : node->inputs)
            if (i >= 0)
                ++consumers[static_cast<std::size_t>(i)];
    for (std::size_t i = 0; i < m_nodes.size(); ++i)
        if (consumers[i] > 1 && m_nodes[i]->requiresGrad)
            units += m_nodes[i]->unitShape.numel();
    return units * batch * static_cast<int64_t>(dtypeSize(m_actDtype));
}

Layer* Graph::layer(const std::string& name) const {
    for (const auto& node : m_nodes)
        if (node->layer->name() == name)
            return node->layer.get();
    return nullptr;
}

const Tensor& Graph::output(const std::string& layerName) const {
    for (const auto& node : m_nodes)
        if (node->layer->name() == layerName)
            return node->out;
    throw Error("no layer " + quoteUserData(layerName) + " in the model");
}

std::vector<Layer*> Graph::layers() const {
    std::vector<Layer*> out;
    for (const auto& node : m_nodes)
        out.push_back(node->layer.get());
    return out;
}

} // namespace tb

// The model: a static DAG of layers built from a model spec (JSON). Shapes, parameters, FLOPs
// and activation memory are known before the first step; activation and gradient buffers are
// allocated once for the largest batch and reused.
#pragma once

#include "nn/layer.h"
#include "nn/steptimeline.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tb {

class DetectOutput;

struct LayerRow {
    std::string name;
    std::string type;
    std::vector<std::string> inputs;
    Shape output; // with the batch dimension
    int64_t params = 0;
    int64_t flops = 0;           // forward, for the whole batch
    int64_t activationBytes = 0; // output + what backward keeps, in the activation dtype
    bool inPlace = false;        // a ReLU fused into its input's layer: no buffer of its own
    bool frozen = false;         // finetune.freeze: its weights do not train
};

// A second output trained beside the logits (torchvision's aux_classifier): scores shaped like
// the logits, whose loss the trainer adds with `weight`. The spec lists them as
// "auxiliary": [{"output": layer name, "weight": 0.5}].
struct AuxiliaryOutput {
    std::string name;
    float weight = 1.0f;
};

struct NamedTensor {
    std::string name; // "conv1.weight", "bn1.running_mean"
    Tensor* tensor;
};

class Graph {
public:
    // Builds and initialises the model on `backend`. actDtype is f32, or f16/bf16 under mixed
    // precision. Throws ConfigError("model") for a malformed spec.
    Graph(const nlohmann::json& spec, Backend& backend, DType actDtype, uint64_t seed);
    ~Graph();

    const std::string& name() const { return m_name; }
    const Shape& inputShape() const { return m_inputShape; } // without the batch dimension
    int classes() const { return m_classes; }
    // Predictions per sample: 1 for a classifier's (n, classes) logits, t for a language
    // model's (n, t, classes), one at each position, the anchor points of a detector's
    // (n, 4 reg_max + classes, anchors), the pixels of a segmentation's (n, classes, h, w).
    int64_t positions() const { return m_positions; }
    // Whether the logits are a class score per pixel, (n, classes, h, w): a segmentation model.
    bool pixelLogits() const { return m_pixelLogits; }
    // A detector's head (its last layer), or null for a classifier or language model.
    const DetectOutput* detectHead() const { return m_detectHead; }
    DType activationDtype() const { return m_actDtype; }
    Backend& backend() const { return m_backend; }

    // Forward pass of input x (n, inputShape...) on the graph's device, f32 or the activation
    // dtype. Returns the logits (n, classes) or (n, positions, classes) in the activation dtype,
    // valid until the next call.
    const Tensor& forward(const Tensor& x, bool training);
    // Backward pass from the gradient of the logits; accumulates every parameter's gradient.
    // With auxiliaryGradsSet the auxiliary outputs' gradients (written into auxiliaryGrad()
    // after the forward pass) flow back too; without, those branches get none.
    void backward(const Tensor& dlogits, bool auxiliaryGradsSet = false);
    const std::vector<AuxiliaryOutput>& auxiliaryOutputs() const { return m_auxiliary; }
    // The i-th auxiliary output of the last forward pass, and its gradient's buffer (only for
    // one that trains: a layer before it has trainable parameters).
    const Tensor& auxiliaryLogits(std::size_t i) const;
    bool auxiliaryTrains(std::size_t i) const;
    Tensor& auxiliaryGrad(std::size_t i);
    // Called after each layer's backward, once its parameters' gradients are final for this
    // pass (data-parallel training starts their all-reduce there). Empty: none.
    void setBackwardHook(std::function<void(Layer&)> hook) { m_backwardHook = std::move(hook); }
    // While set, forward and backward mark each layer's span on it (a profiled step); null: off.
    void setTimeline(StepTimeline* timeline) { m_timeline = timeline; }
    // A buffer shaped like the last logits, for the loss to write its gradient into.
    Tensor& logitsGrad();
    void zeroGrad();

    // The parameters that train: those of frozen layers are left out (optimizer, gradient
    // reduction, clipping and the loss scaler's checks see only these).
    std::vector<Param*> params();
    // Parameters and buffers by qualified name, in a stable order (checkpoints, parity tests).
    std::vector<NamedTensor> stateDict();
    std::vector<LayerRow> summary(int64_t batch) const;
    // Bytes of the gradient buffers a backward pass at this batch uses: the buffers shared by
    // liveness, the logits' gradient, and a second buffer for each output with several consumers.
    int64_t gradientBufferBytes(int64_t batch) const;
    int64_t parameterCount() const;          // all, frozen ones included
    int64_t trainableParameterCount() const; // those params() gives
    // Layers by name, for tests and checkpoint state (dropout pass counters).
    Layer* layer(const std::string& name) const;
    // What the named layer output in the last forward, in the backend's layout (for tests: a
    // ReLU's activation pattern). Throws Error for a name not in the graph.
    const Tensor& output(const std::string& layerName) const;
    std::vector<Layer*> layers() const;

private:
    struct Node;
    void ensureBuffers(int64_t n);
    // Hands a layer with a tied weight (tiedTo()) the named earlier layer's "weight".
    void tieWeight(Node& node, const std::map<std::string, int>& byName);
    void fuseRelus();
    void readAuxiliaryOutputs(const nlohmann::json& spec, const std::map<std::string, int>& byName);
    void planGradients();
    std::vector<Shape> inputShapesOf(const Node& node, int64_t n) const;

    Backend& m_backend;
    std::string m_name;
    Shape m_inputShape;
    int m_classes = 0;
    int64_t m_positions = 1;
    bool m_pixelLogits = false;
    const DetectOutput* m_detectHead = nullptr;
    bool m_inputIsTokenIds = false; // an embedding reads the batch: never cast
    DType m_actDtype;
    std::vector<std::unique_ptr<Node>> m_nodes;
    std::vector<AuxiliaryOutput> m_auxiliary;
    std::vector<int> m_auxiliaryNodes; // their node indices
    int64_t m_capacity = 0;            // batch size the buffers were allocated for
    int64_t m_batch = 0;               // batch size of the last forward
    Tensor m_inputStorage;             // the cast input when x is not in the activation dtype
    Tensor m_input; // what the first layers saw in the last forward (for backward)
    std::vector<int64_t> m_slotUnits;  // elements per sample of each shared gradient buffer
    std::vector<Tensor> m_slotStorage; // those buffers, for m_capacity samples
    Tensor m_logitsGradStorage;
    Tensor m_logitsGrad;
    std::function<void(Layer&)> m_backwardHook;
    StepTimeline* m_timeline = nullptr;
};

} // namespace tb

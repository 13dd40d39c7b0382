// A layer of the static graph: knows its output shape, parameters and FLOPs, and runs forward
// and backward through the backend's op set (never branching on the device).
#pragma once

#include "backend/backend.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace tb {

// A learnable tensor and its gradient, both f32 on the graph's device.
struct Param {
    std::string name; // "weight", "bias"
    Tensor value;
    Tensor grad;
    bool decay = true; // weight decay applies (off for biases and norm parameters)
};

// A non-learnable tensor saved in checkpoints (batch-norm running statistics).
struct StateBuffer {
    std::string name;
    Tensor* value;
};

// Inputs of forward/backward: the output tensors of the layer's input nodes.
using Inputs = std::vector<const Tensor*>;

class Layer {
public:
    virtual ~Layer() = default;

    const std::string& name() const { return m_name; }
    void setName(std::string name) { m_name = std::move(name); }
    virtual std::string type() const = 0;
    virtual int inputCount() const { return 1; }

    // Output shape, batch dimension included. Throws ConfigError("model") on impossible input.
    virtual Shape outputShape(const std::vector<Shape>& in) const = 0;
    // Allocates parameters on the backend with PyTorch's default initialisation.
    virtual void init(Backend& /*backend*/, const std::vector<Shape>& /*in*/, uint64_t /*seed*/) {}
    virtual std::vector<Param*> params() { return {}; }
    virtual std::vector<StateBuffer> buffers() { return {}; }
    // Forward multiply-accumulates x2 for one batch of these input shapes.
    virtual int64_t flops(const std::vector<Shape>& /*in*/) const { return 0; }
    // Bytes the layer keeps between forward and backward beyond its output (masks, indices).
    virtual int64_t savedBytes(const std::vector<Shape>& /*in*/) const { return 0; }
    // Layer options as written in a model spec, for the summary and the run record.
    virtual nlohmann::json options() const { return nlohmann::json::object(); }

    virtual void forward(Backend& b, const Inputs& in, Tensor& out, bool training) = 0;
    // Writes the gradient for input i into din[i] (overwriting; null when not needed) and
    // accumulates parameter gradients.
    virtual void backward(Backend& b, const Inputs& in, const Tensor& out, const Tensor& dout,
                          const std::vector<Tensor*>& din) = 0;

    // Graph fusion: a layer that can apply the ReLU that alone consumes its output, in the
    // same pass, and mask the gradient in its backward. Only layers whose backward does not
    // need their pre-activation output qualify. The graph then skips the ReLU both ways and
    // hands the layer the ReLU's gradient buffer as dout, which the layer may overwrite.
    virtual bool canFuseRelu() const { return false; }
    void fuseRelu() { m_fusedRelu = true; }
    bool fusedRelu() const { return m_fusedRelu; }

    // Token ids: a layer that reads the data batch as ids (an embedding) wants it uncast, f32
    // holding whole numbers, even under mixed precision.
    virtual bool readsTokenIds() const { return false; }
    // Weight tying (a GPT's output projection reads the token embedding's table): the name of
    // the earlier layer whose "weight" this layer uses instead of one of its own, or empty. The
    // graph hands that parameter over before init(); the layer does not list it in params(), so
    // it is stored, decayed and updated once, and both layers' gradients add into it.
    virtual std::string tiedTo() const { return {}; }
    virtual void tie(Param& /*weight*/) {}

    // Random masks (dropout, attention dropout): a layer that draws one each training pass
    // counts its passes, and the mask of pass k depends only on its seed and k. Checkpoints save
    // the count, so a resumed run draws the masks the uninterrupted run would have; other layers
    // say false and ignore setPasses.
    virtual bool drawsMasks() const { return false; }
    virtual uint64_t passes() const { return 0; }
    virtual void setPasses(uint64_t /*passes*/) {}

    // Fine-tuning: a frozen layer's parameters are not trained (the graph neither computes nor
    // hands out their gradients) and its batch norm keeps its running statistics (evaluation
    // mode), as torchvision's fine-tuning recipe does.
    void setFrozen(bool frozen) { m_frozen = frozen; }
    bool frozen() const { return m_frozen; }

private:
    std::string m_name;
    bool m_fusedRelu = false;
    bool m_frozen = false;
};

// Creates a layer from one entry of a model spec's "layers" array (see resources/docs/
// model-spec.md). Throws ConfigError("model") naming the layer and the bad option.
std::unique_ptr<Layer> createLayer(const nlohmann::json& spec);

// Uniform(-bound, bound) fill from a counter-based stream: PyTorch's default for Linear and
// Conv2d uses bound = 1 / sqrt(fan_in).
void uniformInit(Backend& b, Tensor& t, float bound, uint64_t seed);

} // namespace tb

// The layer registry: model-spec "type" names to layer classes.
#include "nn/activation.h"
#include "nn/conv.h"
#include "nn/dense.h"
#include "nn/detecthead.h"
#include "nn/layerutil.h"
#include "nn/norm.h"
#include "nn/pooling.h"
#include "nn/resize.h"
#include "nn/structural.h"
#include "nn/transformer.h"

#include <functional>
#include <map>

namespace tb {

std::unique_ptr<Layer> createLayer(const nlohmann::json& spec) {
    using Factory = std::function<std::unique_ptr<Layer>(const nlohmann::json&)>;
    static const std::map<std::string, Factory> registry = {
        {"linear", [](const auto& s) { return std::make_unique<Linear>(s); }},
        {"conv2d", [](const auto& s) { return std::make_unique<Conv2d>(s); }},
        {"batchnorm2d", [](const auto& s) { return std::make_unique<BatchNorm2d>(s); }},
        {"relu",
         [](const auto& s) { return std::make_unique<ActivationLayer>(Activation::ReLU, s); }},
        {"leakyrelu",
         [](const auto& s) { return std::make_unique<ActivationLayer>(Activation::LeakyReLU, s); }},
        {"relu6",
         [](const auto& s) { return std::make_unique<ActivationLayer>(Activation::ReLU6, s); }},
        {"gelu",
         [](const auto& s) { return std::make_unique<ActivationLayer>(Activation::GELU, s); }},
        {"silu",
         [](const auto& s) { return std::make_unique<ActivationLayer>(Activation::SiLU, s); }},
        {"maxpool2d",
         [](const auto& s) {
             return std::make_unique<Pool2d>(PoolKind::Max, PoolExtent::Window, s);
         }},
        {"avgpool2d",
         [](const auto& s) {
             return std::make_unique<Pool2d>(PoolKind::Avg, PoolExtent::Window, s);
         }},
        {"globalavgpool",
         [](const auto& s) {
             return std::make_unique<Pool2d>(PoolKind::Avg, PoolExtent::Global, s);
         }},
        {"adaptiveavgpool2d",
         [](const auto& s) {
             return std::make_unique<Pool2d>(PoolKind::Avg, PoolExtent::Adaptive, s);
         }},
        {"dropout", [](const auto& s) { return std::make_unique<Dropout>(s); }},
        {"flatten", [](const auto&) { return std::make_unique<Flatten>(); }},
        {"add", [](const auto&) { return std::make_unique<Add>(); }},
        {"shortcut_pad", [](const auto& s) { return std::make_unique<ShortcutPad>(s); }},
        {"concat", [](const auto& s) { return std::make_unique<Concat>(s); }},
        {"channel_slice", [](const auto& s) { return std::make_unique<ChannelSlice>(s); }},
        {"upsample", [](const auto& s) { return std::make_unique<Upsample>(s); }},
        {"resize", [](const auto& s) { return std::make_unique<Resize>(s); }},
        {"detect_output", [](const auto& s) { return std::make_unique<DetectOutput>(s); }},
        {"embedding", [](const auto& s) { return std::make_unique<Embedding>(s); }},
        {"position_embedding",
         [](const auto& s) { return std::make_unique<PositionEmbedding>(s); }},
        {"layer_norm", [](const auto& s) { return std::make_unique<LayerNorm>(s); }},
        {"causal_self_attention",
         [](const auto& s) { return std::make_unique<CausalSelfAttention>(s); }},
    };
    if (!spec.is_object() || !spec.contains("type") || !spec["type"].is_string())
        throw ConfigError("model", "every layer needs a \"type\": " + spec.dump());
    const std::string type = spec["type"];
    const auto it = registry.find(type);
    if (it == registry.end()) {
        std::string known;
        for (const auto& [name, _] : registry)
            known += (known.empty() ? "" : ", ") + name;
        throw ConfigError("model", "unknown layer type '" + type + "'; known: " + known);
    }
    return it->second(spec);
}

} // namespace tb

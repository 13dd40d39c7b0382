// Fine-tuning: freezeLayers marks a prefix of the spec's layers, which is what Graph accepts as
// frozen; the head's parameter group for its own learning rate.
#include "nn/finetune.h"

#include "core/errors.h"
#include "core/textformat.h"
#include "nn/graph.h"
#include "nn/layer.h"

#include <cstdio>

namespace tb {

void freezeLayers(nlohmann::json& spec, const std::string& freeze) {
    if (freeze == "none" || freeze.empty())
        return;
    nlohmann::json& layers = spec.at("layers");
    std::size_t end = 0; // layers [0, end) are frozen
    if (freeze == "backbone") {
        // A model with a named backbone (torchvision's segmentation models: backbone.*, then
        // their heads) freezes that; any other all but its last layer with parameters.
        bool named = false;
        for (std::size_t i = 0; i < layers.size(); ++i)
            if (layers[i].value("name", "").starts_with("backbone.")) {
                end = i + 1;
                named = true;
            }
        for (std::size_t i = 0; !named && i < layers.size(); ++i)
            if (!createLayer(layers[i])->params().empty())
                end = i;
    } else {
        std::size_t i = 0;
        while (i < layers.size() && layers[i].value("name", "") != freeze)
            ++i;
        if (i == layers.size())
            throw ConfigError("finetune.freeze",
                              "the model has no layer named " + quoteUserData(freeze) +
                                  "; give none, backbone or one of its layers' names "
                                  "(trainbench-cli summary lists them)");
        end = i + 1;
    }
    for (std::size_t i = 0; i < end; ++i)
        layers[i]["frozen"] = true;
}

std::vector<ParamGroup> fineTuneParamGroups(Graph& graph, float headLrMult) {
    if (headLrMult == 1.0f)
        return {{"all", graph.params(), 1.0f}};
    const std::vector<Layer*> layers = graph.layers();
    auto head = layers.end();
    for (auto it = layers.begin(); it != layers.end(); ++it)
        if (!(*it)->frozen() && !(*it)->params().empty())
            head = it;
    ParamGroup body{"body", {}, 1.0f}, top{"head", {}, headLrMult};
    for (auto it = layers.begin(); it != layers.end(); ++it)
        if (!(*it)->frozen())
            for (Param* p : (*it)->params())
                (it == head ? top : body).params.push_back(p);
    std::vector<ParamGroup> groups;
    for (ParamGroup* g : {&body, &top})
        if (!g->params.empty())
            groups.push_back(std::move(*g));
    return groups;
}

std::string describeParamGroups(const std::vector<ParamGroup>& groups, float headLrMult) {
    char mult[32];
    std::snprintf(mult, sizeof mult, "%g", static_cast<double>(headLrMult));
    std::string head, body;
    for (const ParamGroup& g : groups) {
        int64_t n = 0;
        for (const Param* p : g.params)
            n += p->value.numel();
        if (g.name == "head")
            head =
                "the classifier head's " + formatCount(n) + " parameters learn at " + mult + "x lr";
        else
            body = ", the other " + formatCount(n) + " that train at lr";
    }
    return "finetune.head_lr_mult=" + std::string(mult) + ": " + head + body;
}

} // namespace tb

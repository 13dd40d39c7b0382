#include "export/torchweights.h"

#include "io/safetensors.h"

namespace tb {

void writeTorchWeights(Graph& graph, const ModelCard& card, const std::string& path) {
    std::vector<SafetensorsEntry> entries;
    for (const NamedTensor& t : graph.stateDict()) {
        Tensor host = Tensor::host(t.tensor->shape(), DType::F32);
        graph.backend().copy(*t.tensor, host);
        entries.push_back({t.name, host});
    }
    // PyTorch counts batch norm's training batches; TrainBench's batch norm keeps no count (it
    // always uses momentum), and the count only matters to momentum=None, so it is written as 0.
    for (Layer* layer : graph.layers()) {
        if (layer->type() != "batchnorm2d")
            continue;
        Tensor count = Tensor::host(Shape(), DType::I32);
        *count.data<int32_t>() = 0;
        entries.push_back({layer->name() + ".num_batches_tracked", count});
    }
    std::map<std::string, std::string> metadata{
        {"format", "pt"}, // what safetensors.torch writes: PyTorch tensors
        {"model", card.model},
        {"class_names", nlohmann::json(card.classNames)
                            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)},
    };
    if (!card.mean.empty()) {
        metadata["normalize_mean"] = nlohmann::json(card.mean).dump();
        metadata["normalize_std"] = nlohmann::json(card.stdDev).dump();
    }
    writeSafetensors(path, entries, metadata);
}

} // namespace tb

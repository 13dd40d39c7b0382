// model.pretrained: which of the file's tensors go where, then one copy each.
#include "train/pretrained.h"

#include "backend/backend.h"
#include "core/errors.h"
#include "core/half.h"
#include "io/safetensors.h"
#include "io/torchcheckpoint.h"
#include "nn/detecthead.h"
#include "nn/graph.h"

#include <fstream>
#include <map>
#include <set>
#include <tuple>

namespace tb {

namespace {

constexpr const char* kField = "model.pretrained";

// PyTorch's files are zip archives (torch.save since 1.6); safetensors starts with its length.
// torch.save's zip archive, or its format before 1.6: a protocol-2 pickle whose first value is
// PyTorch's magic number as a 10-byte long (PROTO 2, LONG1 10), which the torch reader names
// with its fix; the safetensors reader would only see a bad header length.
bool isTorchFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    unsigned char magic[4] = {};
    in.read(reinterpret_cast<char*>(magic), sizeof magic);
    if (in.gcount() != 4)
        return false;
    const bool zip = magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4;
    const bool legacy = magic[0] == 0x80 && magic[1] == 2 && magic[2] == 0x8a && magic[3] == 10;
    return zip || legacy;
}

std::map<std::string, Tensor> readWeights(const std::string& path) {
    if (!std::ifstream(path).good())
        throw ConfigError(kField, "cannot open " + path);
    try {
        return isTorchFile(path) ? readTorchCheckpoint(path).tensors
                                 : readSafetensors(path).tensors;
    } catch (const DatasetError& e) {
        throw ConfigError(kField, e.what());
    }
}

bool startsWith(const std::string& s, const std::string& prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
}

// A file name with `prefix` and then any DistributedDataParallel "module." taken off.
std::string modelNameOf(const std::string& key, const std::string& prefix) {
    std::string name = key.substr(prefix.size());
    while (startsWith(name, "module."))
        name.erase(0, 7);
    return name;
}

// How many of the file's names, with `prefix` and "module." taken off and `modelPrefix` put on,
// name a tensor of the model.
int64_t matchesUnder(const std::map<std::string, Tensor>& file, const std::string& prefix,
                     const std::string& modelPrefix, const std::set<std::string>& names) {
    int64_t count = 0;
    for (const auto& [key, tensor] : file)
        count += startsWith(key, prefix) && names.count(modelPrefix + modelNameOf(key, prefix));
    return count;
}

// The prefix under which the file's names match the model's best: every dotted prefix of up to
// three parts is tried ("state_dict.", "model.", "state_dict.model.", ...); ties go to the
// shorter. And whether they match better as the model's "backbone." (a classifier's weights
// starting a segmentation model, as torchvision's weights_backbone does).
std::pair<std::string, std::string> bestPrefixes(const std::map<std::string, Tensor>& file,
                                                 const std::set<std::string>& names) {
    std::set<std::string> prefixes{""};
    for (const auto& [key, tensor] : file) {
        std::size_t end = 0;
        for (int parts = 1; parts <= 3; ++parts) {
            end = key.find('.', end);
            if (end == std::string::npos)
                break;
            prefixes.insert(key.substr(0, ++end));
        }
    }
    std::pair<std::string, std::string> best{"", ""};
    int64_t bestCount = -1;
    for (const char* modelPrefix : {"", "backbone."})
        for (const std::string& prefix : prefixes) {
            const int64_t count = matchesUnder(file, prefix, modelPrefix, names);
            if (count > bestCount ||
                (count == bestCount && prefix.size() < best.first.size() && count > 0)) {
                best = {prefix, modelPrefix};
                bestCount = count;
            }
        }
    return best;
}

bool isTrainingState(const std::string& key) {
    return startsWith(key, "optimizer.") || startsWith(key, "scaler.");
}

// The classifier: the last layer with parameters, whose shape follows the class count; for a
// detector its class branch (YOLOv8's Detect.cv3, whose widths follow the class count too, as
// Ultralytics' intersect_dicts leaves it behind for another dataset); for a segmentation model
// with an auxiliary head (torchvision's aux_classifier), that head's last such layer too.
std::vector<std::string> headLayersOf(const Graph& graph) {
    if (const DetectOutput* detect = graph.detectHead())
        return {detect->name() + ".cv3"};
    std::vector<std::string> heads;
    std::string last;
    for (Layer* layer : graph.layers()) {
        if (!layer->params().empty())
            last = layer->name();
        for (const AuxiliaryOutput& aux : graph.auxiliaryOutputs())
            if (layer->name() == aux.name && !last.empty())
                heads.push_back(last);
    }
    if (!last.empty())
        heads.push_back(last);
    return heads;
}

// The head layer a tensor's name belongs to, or "".
std::string headOf(const std::vector<std::string>& heads, const std::string& name) {
    for (const std::string& head : heads)
        if (startsWith(name, head + "."))
            return head;
    return {};
}

// The file's values as `dtype` (a float type), on the host.
Tensor asFloat(const Tensor& src, DType dtype, const std::string& path, const std::string& key) {
    if (src.dtype() == dtype)
        return src;
    if (dtype != DType::F32 || (src.dtype() != DType::F16 && src.dtype() != DType::BF16))
        throw ConfigError(kField, path + ": tensor '" + key + "' holds " +
                                      std::string(dtypeName(src.dtype())) +
                                      " values; the model's is " + std::string(dtypeName(dtype)));
    Tensor out = Tensor::host(src.shape(), dtype);
    const uint16_t* in = src.data<uint16_t>();
    float* o = out.data<float>();
    for (int64_t i = 0; i < src.numel(); ++i)
        o[i] = src.dtype() == DType::F16 ? halfToFloat(in[i]) : bf16ToFloat(in[i]);
    return out;
}

std::string joined(const std::vector<std::string>& names, std::size_t most) {
    std::string text;
    for (std::size_t i = 0; i < names.size() && i < most; ++i)
        text += (i ? ", " : "") + names[i];
    if (names.size() > most)
        text += " and " + std::to_string(names.size() - most) + " more";
    return text;
}

} // namespace

PretrainedLoad loadPretrained(const std::string& path, Graph& graph, bool strict) {
    const std::map<std::string, Tensor> file = readWeights(path);
    std::map<std::string, Tensor*> model;
    std::set<std::string> names;
    for (const NamedTensor& t : graph.stateDict()) {
        model[t.name] = t.tensor;
        names.insert(t.name);
    }
    PretrainedLoad load;
    load.path = path;
    std::tie(load.prefix, load.modelPrefix) = bestPrefixes(file, names);
    const std::vector<std::string> heads = headLayersOf(graph);

    std::map<std::string, const Tensor*> matched; // model name -> the file's tensor
    bool dataParallelNames = false;
    for (const auto& [key, tensor] : file) {
        if (!startsWith(key, load.prefix) || isTrainingState(key)) {
            ++load.ignored;
            continue;
        }
        dataParallelNames |= startsWith(key.substr(load.prefix.size()), "module.");
        const std::string fileName = modelNameOf(key, load.prefix);
        const std::string name = load.modelPrefix + fileName;
        const auto dot = name.rfind('.');
        if (names.count(name)) {
            matched[name] = &tensor;
        } else if (dot != std::string::npos && name.substr(dot + 1) == "num_batches_tracked" &&
                   graph.layer(name.substr(0, dot)) != nullptr) {
            ++load.ignored; // BN here always uses momentum 0.1, so the count changes nothing
        } else {
            load.unexpected.push_back(fileName);
        }
    }
    if (dataParallelNames)
        load.prefix += "module.";
    for (const std::string& name : names)
        if (!matched.count(name))
            load.missing.push_back(name);
    if (strict && (!load.missing.empty() || !load.unexpected.empty()))
        throw ConfigError(
            kField,
            path + " does not match the model (model.pretrained_strict): " +
                (load.missing.empty() ? std::string() : "missing " + joined(load.missing, 8)) +
                (!load.missing.empty() && !load.unexpected.empty() ? "; " : "") +
                (load.unexpected.empty() ? std::string()
                                         : "unexpected " + joined(load.unexpected, 8)));

    // Shapes first, so a mismatch fails before anything is copied.
    std::set<std::string> headsDiffering;
    int differing = 0;
    for (const auto& [name, tensor] : matched) {
        const Shape& want = model[name]->shape();
        if (tensor->shape() == want)
            continue;
        if (const std::string head = headOf(heads, name); !head.empty()) {
            // The first two differences name it; a detector's branch has dozens.
            if (++differing <= 2)
                load.replacedHead += (load.replacedHead.empty()    ? head + ": "
                                      : headsDiffering.count(head) ? ", "
                                                                   : "; " + head + ": ") +
                                     name.substr(head.size() + 1) + " " +
                                     tensor->shape().toString() + " in the file, " +
                                     want.toString() + " here";
            headsDiffering.insert(head);
            continue;
        }
        throw ConfigError(kField, path + ": tensor '" + name + "' has shape " +
                                      tensor->shape().toString() + " in the file; the model's is " +
                                      want.toString());
    }
    if (differing > 2)
        load.replacedHead += " and " + std::to_string(differing - 2) + " more tensors";
    Backend& backend = graph.backend();
    for (const auto& [name, tensor] : matched) {
        if (headsDiffering.count(headOf(heads, name)))
            continue; // the whole head stays initialised for this dataset's classes
        Tensor& dst = *model[name];
        backend.copy(asFloat(*tensor, dst.dtype(), path, name), dst);
        ++load.loaded;
    }
    return load;
}

std::vector<std::string> describePretrained(const PretrainedLoad& load) {
    std::string line = "pretrained weights from " + load.path + ": " + std::to_string(load.loaded) +
                       " tensors loaded";
    if (!load.prefix.empty())
        line += " (names under '" + load.prefix + "')";
    if (!load.modelPrefix.empty())
        line += " into the model's '" + load.modelPrefix + "'";
    if (load.ignored)
        line += ", " + std::to_string(load.ignored) +
                " set aside (training state, batch-norm counters)";
    if (!load.replacedHead.empty())
        line += "; the head is new, for this dataset's classes (" + load.replacedHead + ")";
    std::vector<std::string> lines{line};
    if (!load.missing.empty())
        lines.push_back("pretrained: " + std::to_string(load.missing.size()) +
                        " of the model's tensors are not in the file and keep their "
                        "initialisation: " +
                        joined(load.missing, 12));
    if (!load.unexpected.empty())
        lines.push_back(
            "pretrained: " + std::to_string(load.unexpected.size()) +
            " tensors in the file have no place in the model: " + joined(load.unexpected, 12));
    return lines;
}

} // namespace tb

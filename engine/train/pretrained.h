// Pretrained weights for a new run (model.pretrained): a .safetensors file (TrainBench's own
// checkpoints among them) or a PyTorch .pth / .pt state dict, matched to the model by name as
// PyTorch's load_state_dict does, with the wrappers PyTorch users meet taken off first.
#pragma once

#include <string>
#include <vector>

namespace tb {

class Graph;

struct PretrainedLoad {
    std::string path;
    // What was taken off the file's names: "" , "module." (DistributedDataParallel),
    // "state_dict." (Lightning), "model." ({"model": state_dict, ...}), or several.
    std::string prefix;
    // What was put in front of them: "" , or "backbone." when a classifier's weights start a
    // segmentation model's backbone (its fc is then left over).
    std::string modelPrefix;
    int64_t loaded = 0; // tensors copied into the model
    // Outside the model's part of the file: training state (optimizer, scaler), other entries
    // beside the prefix, BN's num_batches_tracked (no effect with a fixed momentum).
    int64_t ignored = 0;
    std::vector<std::string> missing;    // the model's tensors the file lacks: kept initialised
    std::vector<std::string> unexpected; // the file's tensors the model has no place for
    // The classifier head (a detector's class branch), kept freshly initialised because its
    // shape differs from the file's (another class count): "fc: weight 1000x512 in the file,
    // 10x512 here".
    std::string replacedHead;
};

// Loads what matches into `graph` (on its backend). Throws ConfigError("model.pretrained")
// naming the file for one that cannot be read (and why), a tensor whose shape differs outside
// the head (both shapes named), values that cannot become the model's (integers for a weight),
// and, when `strict`, any missing or unexpected tensor (listed).
PretrainedLoad loadPretrained(const std::string& path, Graph& graph, bool strict);

// What the run's log says about it: one line, and one each for missing and unexpected names.
std::vector<std::string> describePretrained(const PretrainedLoad& load);

} // namespace tb

// Fine-tuning's freeze (finetune.freeze), marked in a model spec: "frozen": true on each layer
// that keeps its weights (see Layer::setFrozen).
#pragma once

#include "optim/optimizer.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tb {

// `freeze`: "none"; "backbone", every layer before the classifier head (the last layer with
// parameters), so only the head trains (feature extraction); or a layer's name, that layer and
// every one before it. Throws ConfigError("finetune.freeze") for a name the spec lacks.
void freezeLayers(nlohmann::json& spec, const std::string& freeze);

class Graph;
// The optimizer's parameter groups for finetune.head_lr_mult: "body", the parameters that train
// before the classifier head, at the schedule's rate, and "head", the last layer with trainable
// parameters, at headLrMult times it. One group "all" when the multiplier is 1; an empty group is
// left out (with finetune.freeze=backbone only the head trains).
std::vector<ParamGroup> fineTuneParamGroups(Graph& graph, float headLrMult);
// "finetune.head_lr_mult=10: the classifier head's 5,130 parameters learn at 10x lr, the other
// 11,176,512 at lr", for the run's log.
std::string describeParamGroups(const std::vector<ParamGroup>& groups, float headLrMult);

} // namespace tb

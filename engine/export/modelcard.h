// What a trained model needs besides its weights to be used elsewhere: its spec, what it reads
// (sample shape, normalisation, vocabulary) and what its outputs mean (class names). Written
// into exported files' metadata and read back from them.
#pragma once

#include "core/shape.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tb {

struct ModelCard {
    std::string model;   // the zoo name or spec file the run trained ("resnet18")
    nlohmann::json spec; // the resolved model spec (CLASSES filled in)
    std::string dataset; // "fmnist", "imagefolder:/photos"
    Shape sampleShape;   // without the batch dimension: {C, H, W}, or {t} token ids
    std::vector<std::string> classNames;
    std::vector<float> mean, stdDev;     // per channel; empty: the input is not normalised
    std::vector<std::string> vocabulary; // a language model's tokens, id order
    bool byteLevel = false;

    bool readsTokenIds() const { return !vocabulary.empty(); }
};

} // namespace tb

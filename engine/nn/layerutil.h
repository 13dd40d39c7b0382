// Small helpers shared by the layer implementations.
#pragma once

#include "backend/backend.h"
#include "core/errors.h"
#include "core/tensor.h"

#include <nlohmann/json.hpp>

#include <string>

namespace tb {

// Largest size a layer option or a spec's input may ask for (channels, features, classes): far
// beyond any model that fits in memory; what is allocated is checked when it is allocated.
inline constexpr int64_t kMaxLayerSize = int64_t{1} << 24;
// Largest kernel side, stride or padding.
inline constexpr int64_t kMaxKernel = 256;

// Allowed values of a float option; an open end excludes its bound.
struct FloatRange {
    double min, max;
    bool minOpen = false, maxOpen = false;
};

// Layer options of a model spec. Each returns the fallback when the key is absent and throws
// ConfigError("model") naming the layer, the option, what is allowed and what was given when
// the value has the wrong type or lies outside the range.
int64_t intOption(const nlohmann::json& spec, const char* key, int64_t fallback,
                  int64_t minimum = 1, int64_t maximum = kMaxLayerSize);
float floatOption(const nlohmann::json& spec, const char* key, float fallback, FloatRange range);
bool boolOption(const nlohmann::json& spec, const char* key, bool fallback);

// The layer's "name" for messages: its name, else its type, else "?" (never throws).
std::string layerLabel(const nlohmann::json& spec);

// Throws ConfigError("model") naming the layer.
[[noreturn]] void layerError(const std::string& layer, const std::string& message);

// Normal(0, stddev) fill from the same counter-based stream as uniformInit (Box-Muller), for
// the weights GPTs initialise with std 0.02.
void normalInit(Backend& b, Tensor& t, float stddev, uint64_t seed);

// (Re)allocates a layer-owned scratch tensor when its shape or dtype changed.
void ensureTensor(Backend& b, Tensor& t, const Shape& shape, DType dtype);

} // namespace tb

// Small helpers shared by the layer implementations.
#pragma once

#include "backend/backend.h"
#include "core/errors.h"
#include "core/tensor.h"

#include <nlohmann/json.hpp>

#include <string>

namespace tb {

// Reads an integer option >= minimum, or the fallback when it is absent.
int64_t intOption(const nlohmann::json& spec, const char* key, int64_t fallback,
                  int64_t minimum = 1);
float floatOption(const nlohmann::json& spec, const char* key, float fallback);
bool boolOption(const nlohmann::json& spec, const char* key, bool fallback);

// Throws ConfigError("model") naming the layer.
[[noreturn]] void layerError(const std::string& layer, const std::string& message);

// (Re)allocates a layer-owned scratch tensor when its shape or dtype changed.
void ensureTensor(Backend& b, Tensor& t, const Shape& shape, DType dtype);

} // namespace tb

// Option parsing and scratch allocation for layers.
#include "nn/layerutil.h"

#include "backend/backend.h"
#include "backend/kernels/random_math.h"
#include "nn/layer.h"

namespace tb {

int64_t intOption(const nlohmann::json& spec, const char* key, int64_t fallback, int64_t minimum) {
    if (!spec.contains(key))
        return fallback;
    const auto& v = spec.at(key);
    if (!v.is_number_integer() || v.get<int64_t>() < minimum)
        layerError(spec.value("name", spec.value("type", "?")),
                   std::string("option '") + key +
                       "' must be an integer >= " + std::to_string(minimum) + ", got " + v.dump());
    return v.get<int64_t>();
}

float floatOption(const nlohmann::json& spec, const char* key, float fallback) {
    if (!spec.contains(key))
        return fallback;
    const auto& v = spec.at(key);
    if (!v.is_number())
        layerError(spec.value("name", spec.value("type", "?")),
                   std::string("option '") + key + "' must be a number, got " + v.dump());
    return v.get<float>();
}

bool boolOption(const nlohmann::json& spec, const char* key, bool fallback) {
    if (!spec.contains(key))
        return fallback;
    const auto& v = spec.at(key);
    if (!v.is_boolean())
        layerError(spec.value("name", spec.value("type", "?")),
                   std::string("option '") + key + "' must be true or false, got " + v.dump());
    return v.get<bool>();
}

void layerError(const std::string& layer, const std::string& message) {
    throw ConfigError("model", "layer " + quoteUserData(layer) + ": " + message);
}

void ensureTensor(Backend& b, Tensor& t, const Shape& shape, DType dtype) {
    if (t.defined() && t.dtype() == dtype && t.shape() == shape)
        return;
    if (t.defined() && t.dtype() == dtype &&
        t.buffer()->bytes() >= static_cast<std::size_t>(shape.numel()) * dtypeSize(dtype)) {
        t = Tensor(t.buffer(), shape, dtype);
        return;
    }
    t = b.empty(shape, dtype);
}

void uniformInit(Backend& b, Tensor& t, float bound, uint64_t seed) {
    if (t.device().isMeta())
        return; // a shape without memory: nothing to fill, and no host copy to make
    Tensor host = Tensor::host(t.shape(), DType::F32);
    float* p = host.data<float>();
    for (int64_t i = 0; i < t.numel(); ++i)
        p[i] = (2.0f * math::uniform01(seed, static_cast<uint64_t>(i)) - 1.0f) * bound;
    b.copy(host, t);
}

} // namespace tb

// Option parsing and scratch allocation for layers.
#include "nn/layerutil.h"

#include "backend/backend.h"
#include "backend/kernels/random_math.h"
#include "nn/layer.h"

#include <cmath>
#include <sstream>

namespace tb {

namespace {

std::string number(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

} // namespace

std::string layerLabel(const nlohmann::json& spec) {
    for (const char* key : {"name", "type"})
        if (spec.is_object() && spec.contains(key) && spec[key].is_string())
            return spec[key].get<std::string>();
    return "?";
}

int64_t intOption(const nlohmann::json& spec, const char* key, int64_t fallback, int64_t minimum,
                  int64_t maximum) {
    if (!spec.contains(key))
        return fallback;
    const auto& v = spec.at(key);
    // Unsigned JSON numbers above INT64_MAX are out of range too, not wrapped.
    const bool fits =
        v.is_number_integer() &&
        !(v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(maximum));
    if (!fits || v.get<int64_t>() < minimum || v.get<int64_t>() > maximum)
        layerError(layerLabel(spec), std::string("option '") + key +
                                         "' must be a whole number from " +
                                         std::to_string(minimum) + " to " +
                                         std::to_string(maximum) + ", got " + v.dump());
    return v.get<int64_t>();
}

float floatOption(const nlohmann::json& spec, const char* key, float fallback, FloatRange range) {
    if (!spec.contains(key))
        return fallback;
    const auto& v = spec.at(key);
    const double x = v.is_number() ? v.get<double>() : 0.0;
    const bool inRange = v.is_number() && std::isfinite(x) &&
                         (range.minOpen ? x > range.min : x >= range.min) &&
                         (range.maxOpen ? x < range.max : x <= range.max);
    if (!inRange)
        layerError(layerLabel(spec), std::string("option '") + key + "' must be a number in " +
                                         (range.minOpen ? "(" : "[") + number(range.min) + ", " +
                                         number(range.max) + (range.maxOpen ? ")" : "]") +
                                         ", got " + v.dump());
    return static_cast<float>(x);
}

bool boolOption(const nlohmann::json& spec, const char* key, bool fallback) {
    if (!spec.contains(key))
        return fallback;
    const auto& v = spec.at(key);
    if (!v.is_boolean())
        layerError(layerLabel(spec),
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

void normalInit(Backend& b, Tensor& t, float stddev, uint64_t seed) {
    if (t.device().isMeta())
        return;
    Tensor host = Tensor::host(t.shape(), DType::F32);
    float* p = host.data<float>();
    constexpr double kTwoPi = 6.283185307179586;
    for (int64_t i = 0; i < t.numel(); ++i) {
        const auto k = static_cast<uint64_t>(i);
        // 1 - u keeps the logarithm's argument in (0, 1].
        const double u1 = 1.0 - static_cast<double>(math::uniform01(seed, 2 * k));
        const double u2 = math::uniform01(seed, 2 * k + 1);
        p[i] = static_cast<float>(stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2));
    }
    b.copy(host, t);
}

} // namespace tb

// What the zoo's spec builders share: one layer of a model spec.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace tb {

// {"type": type, "name": name, ...options}.
inline nlohmann::json layerSpec(const std::string& type, const std::string& name,
                                nlohmann::json options = nlohmann::json::object()) {
    options["type"] = type;
    options["name"] = name;
    return options;
}

} // namespace tb

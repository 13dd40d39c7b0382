// JsonFields: reads the fields of a teacher's JSON file (an experiment preset, a lesson) with
// errors that name the file and the key ("mine.json: steps: must be a whole number ...").
#pragma once

#include "core/errors.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tb {

// A JSON scalar as --set would take it: strings bare, numbers and booleans as JSON writes them.
inline std::string setValueText(const nlohmann::json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

class JsonFields {
public:
    // `prefix` names a nested object in errors: "images." gives "mine.json: images.size: ...".
    JsonFields(const nlohmann::json& json, std::string source, std::string prefix = {})
        : m_json(json), m_source(std::move(source)), m_prefix(std::move(prefix)) {}

    [[noreturn]] void fail(const std::string& key, const std::string& message) const {
        throw ConfigError(m_source + ": " + m_prefix + key, message);
    }
    std::string text(const std::string& key, bool required) const {
        const auto it = m_json.find(key);
        if (it == m_json.end()) {
            if (required)
                fail(key, "is missing");
            return {};
        }
        if (!it->is_string() || it->get<std::string>().empty())
            fail(key, "must be a non-empty string");
        return it->get<std::string>();
    }
    int count(const std::string& key, int fallback, int min, int max) const {
        const auto it = m_json.find(key);
        if (it == m_json.end())
            return fallback;
        if (!it->is_number_integer() || it->get<int64_t>() < min || it->get<int64_t>() > max)
            fail(key, "must be a whole number from " + std::to_string(min) + " to " +
                          std::to_string(max));
        return it->get<int>();
    }
    bool flag(const std::string& key) const {
        const auto it = m_json.find(key);
        if (it == m_json.end())
            return false;
        if (!it->is_boolean())
            fail(key, "must be true or false");
        return it->get<bool>();
    }
    // A list of non-empty strings; empty when absent.
    std::vector<std::string> texts(const std::string& key) const {
        const auto it = m_json.find(key);
        if (it == m_json.end())
            return {};
        if (!it->is_array())
            fail(key, "must be a list of strings");
        std::vector<std::string> out;
        for (std::size_t i = 0; i < it->size(); ++i) {
            const nlohmann::json& v = (*it)[i];
            if (!v.is_string() || v.get<std::string>().empty())
                fail(key + "[" + std::to_string(i) + "]", "must be a non-empty string");
            out.push_back(v.get<std::string>());
        }
        return out;
    }

private:
    const nlohmann::json& m_json;
    std::string m_source;
    std::string m_prefix;
};

} // namespace tb

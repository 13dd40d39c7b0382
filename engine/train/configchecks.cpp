// Config checks beyond type and range.
#include "train/configchecks.h"

#include "core/errors.h"
#include "nn/modelzoo.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

namespace tb {

void checkDevice(const nlohmann::json& v) {
    const std::string d = v.get<std::string>();
    const bool cuda =
        d.rfind("cuda:", 0) == 0 && d.size() > 5 &&
        std::all_of(d.begin() + 5, d.end(), [](char c) { return c >= '0' && c <= '9'; });
    // "cuda": the GPU of this rank (cuda:local_rank in a data-parallel job, else cuda:0).
    if (d != "auto" && d != "cpu" && d != "cuda" && !cuda)
        throw ConfigError("device", "'" + d + "' must be auto, cpu, cuda or cuda:N");
}

void checkModel(const nlohmann::json& v) {
    const std::string m = v.get<std::string>();
    for (const ZooEntry& e : modelZoo())
        if (e.name == m)
            return;
    if (isModelSpecPath(m))
        return;
    std::string known;
    for (const ZooEntry& e : modelZoo())
        known += (known.empty() ? "" : ", ") + e.name;
    throw ConfigError("model", "unknown model '" + m + "'; the zoo has " + known +
                                   ", or give the path of a spec file ending in .json");
}

void checkTags(const nlohmann::json& v) {
    for (std::size_t i = 0; i < v.size(); ++i)
        if (!v[i].is_string())
            throw ConfigError("tags", "item " + std::to_string(i + 1) + " is " + v[i].dump() +
                                          "; tags are strings");
}

int64_t milestoneOf(const nlohmann::json& m) {
    const std::string s = m.is_string() ? m.get<std::string>() : m.dump();
    int64_t x = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    if (ec != std::errc() || end != s.data() + s.size() || x < 1)
        throw ConfigError("lr_milestones", "'" + s + "' is not a positive step number");
    return x;
}

void checkMilestones(const nlohmann::json& v) {
    for (const nlohmann::json& m : v)
        (void)milestoneOf(m);
}

} // namespace tb

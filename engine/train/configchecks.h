// The config keys' checks beyond type and range (a device name, a model, tags, lr milestones),
// as the schema in runconfig.cpp calls them. Each throws ConfigError naming the key.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>

namespace tb {

void checkDevice(const nlohmann::json& v);
void checkModel(const nlohmann::json& v);
void checkTags(const nlohmann::json& v);
// A milestone as a step number; "3000" and 3000 alike.
int64_t milestoneOf(const nlohmann::json& m);
void checkMilestones(const nlohmann::json& v);

} // namespace tb

// Runs as JSON and CSV, and the config keys that differ between runs: shared by the CLI's
// `runs list --json`, `runs export` and `runs compare` (and the UI's export).
#pragma once

#include "store/runrecord.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace tb {

class RunStore;

// The run's columns as a JSON object (missing values are null; config stays nested).
nlohmann::json runToJson(const RunRecord& run);
nlohmann::json stepToJson(const StepEvent& step);
nlohmann::json epochToJson(const EpochEvent& epoch);

// Nested objects flattened to dotted keys ({"optimizer": {"lr": 0.1}} -> "optimizer.lr": "0.1").
// Arrays and scalars are kept as their JSON text; strings unquoted.
std::map<std::string, std::string> flattenJson(const nlohmann::json& json);

// The flattened config keys whose values are not the same in all runs (absent counts as a
// value), with each run's value in the runs' order.
struct ConfigDifference {
    std::string key;
    std::vector<std::optional<std::string>> values;
};
std::vector<ConfigDifference> configDifferences(const std::vector<RunRecord>& runs);

// All of a run's step and epoch metrics. CSV: one header, then one row per step (kind "step")
// and per epoch (kind "epoch"), empty cells where a column does not apply or was not measured.
// JSON: {"run": {...}, "steps": [...], "epochs": [...]}. Throws StoreError.
void exportRunCsv(RunStore& store, const std::string& runId, std::ostream& out);
void exportRunJson(RunStore& store, const std::string& runId, std::ostream& out);

enum class ExportFormat { Csv, Json };

// Exports the run to the file at path: written to a new temporary file in the same folder and
// renamed over path once complete, so a failed export leaves an older file whole. Refuses a
// path that is the store's database or one of SQLite's files beside it (-wal, -shm, -journal),
// by identity, so links and other spellings of the path are caught too. Throws StoreError
// naming the file.
void exportRunToFile(RunStore& store, const std::string& runId, ExportFormat format,
                     const std::string& path);
// The same for any export that `write` produces (the long-format export of several runs).
void exportToFile(const std::string& path, const std::string& databasePath,
                  const std::function<void(std::ostream&)>& write);

} // namespace tb

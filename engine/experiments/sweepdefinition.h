// A sweep: a base config, the keys to vary and their values (a list, or a range on a linear or
// log scale), how to pick the trials (every combination, a seeded random draw, or either of
// those cut short by successive halving), and the metric that ranks them. Read from a JSON file
// (the format is in resources/docs/sweeps.md) and checked against the config schema before anything
// runs, so a bad file fails at once, naming the file and the key.
#pragma once

#include "train/runconfig.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tb {

enum class SweepMethod { Grid, Random, Halving };
const char* toString(SweepMethod method);

// One swept key: its listed values, or a range.
struct SweepParameter {
    std::string key;
    std::vector<std::string> values; // listed values, as --set takes them; empty for a range
    double min = 0.0, max = 0.0;
    bool logScale = false; // a range drawn (and gridded) evenly in log space
    bool integer = false;  // the key takes whole numbers: drawn values are rounded
    int steps = 0;         // a range in a grid: this many points, ends included
    bool isRange() const { return values.empty(); }
};

// What ranks the trials: a run summary metric (store/runsummary.h).
struct SweepMetric {
    std::string name; // best_val_acc, final_val_acc, final_val_loss, final_train_loss, ...
    bool maximize = true;
};

// Successive halving (ASHA): every trial is given `max` epochs or steps, and judged at the
// rungs min, min*reduction, min*reduction^2, ... below max; at a rung it goes on only while its
// metric is among the best 1/reduction of those measured at that rung so far.
struct HalvingBudget {
    bool epochs = true; // the budget counts epochs, else optimizer steps
    int64_t min = 1, max = 0;
    int reduction = 3;
    // The budgets a trial is judged at, ascending (max itself is not a rung: a trial that gets
    // there has finished).
    std::vector<int64_t> rungs() const;
};

struct SweepDefinition {
    std::string name;
    RunConfig base;
    std::vector<SweepParameter> parameters;
    SweepMethod method = SweepMethod::Grid;
    int count = 0; // random, and halving over drawn trials: trials drawn; 0: a grid
    uint64_t seed = 0;
    SweepMetric metric;
    HalvingBudget budget; // halving only
};

// One trial: the keys it sets on the base config, in the definition's order.
struct SweepTrial {
    int index = 0; // 0-based, in the order the method lists the trials
    std::vector<std::pair<std::string, std::string>> set;
    std::string label() const; // "lr=0.01 batch_size=64"
};

// Parses a sweep; `source` (the file) prefixes every error key ("lr.json: parameters.lr.min").
// Throws ConfigError.
SweepDefinition parseSweepDefinition(const nlohmann::json& json, const std::string& source);
// Reads and parses a sweep file. Throws ConfigError or DatasetError naming the file.
SweepDefinition loadSweepDefinition(const std::string& path);

// The trials the definition says: every combination for a grid (the first parameter changing
// slowest), `count` draws for random search, the same for the same seed on every machine;
// halving starts those of a grid or of a draw (when it has a count).
std::vector<SweepTrial> sweepTrials(const SweepDefinition& sweep);

// The base config with the trial's keys set (and, for halving, the budget's max as max_epochs
// or max_steps).
RunConfig trialConfig(const SweepDefinition& sweep, const SweepTrial& trial);

} // namespace tb

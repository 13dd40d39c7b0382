// Which swept keys mattered: for a set of recorded runs and a summary metric, each config key's
// correlation with the metric and its permutation importance in a random forest fitted to
// predict the metric from the keys (dlib's random_forest_regression_trainer; seeded, so the
// same runs give the same numbers). Like W&B's parameter importance, without its cloud.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb {

struct RunRecord;

struct KeyImportance {
    std::string key;
    bool categorical = false; // values that are not all numbers (ordinal-coded)
    int distinctValues = 0;
    // Pearson's r between the key and the metric: numbers and two-valued keys only.
    std::optional<double> correlation;
    double importance = 0.0;  // share of the summed permutation importance, 0..1
    double mseIncrease = 0.0; // the forest's mean squared error rise when the key is shuffled
};

struct ImportanceReport {
    std::string metric;
    int runs = 0; // runs with the metric that the numbers rest on
    static constexpr int kMinimumRuns = 8;
    bool enoughRuns() const { return runs >= kMinimumRuns; }
    // How much of the metric's variance the forest explains out of bag (1 - OOB MSE / variance);
    // near or below 0: the keys do not predict the metric, whatever the ranking says.
    double outOfBagR2 = 0.0;
    std::vector<KeyImportance> keys; // most important first; empty without enough runs
};

// `keys` empty: the config keys whose values differ between the runs, less the logging ones
// (isLoggingKey: name, tags, checkpoint_dir, ...).
// Runs without the metric are left out. Throws ConfigError("metric") for an unknown metric.
ImportanceReport parameterImportance(const std::vector<RunRecord>& runs, const std::string& metric,
                                     const std::vector<std::string>& keys = {}, uint64_t seed = 0);

} // namespace tb

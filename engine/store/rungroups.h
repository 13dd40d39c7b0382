// Runs grouped by the values of config keys (`lr`, or `lr,seed`): one line per group for a
// series, the mean over its runs at each x with the min-max and +-1 standard deviation band,
// as W&B's grouped runs show them. Shared by the window's comparison and `runs compare
// --group-by`.
#pragma once

#include "store/runseries.h"

#include <string>
#include <vector>

namespace tb {

struct SeriesGroup {
    std::string label;               // "lr=0.1, seed=2" (or "(all runs)" with no keys)
    std::vector<std::string> runIds; // in the order given
    // At each x (the union of the runs' x values, in order): over the runs whose x range covers
    // it (interpolated linearly between their own points, never extrapolated), the mean, min,
    // max and population standard deviation, and how many runs had a value there.
    std::vector<double> x, mean, min, max, stddev;
    std::vector<int> count;
};

// "key=value, key=value" of a run's flattened config; "(absent)" for a key it lacks.
std::string groupLabel(const RunRecord& run, const std::vector<std::string>& keys);

// The groups of `runs` by `keys`, in order of first appearance, for one series against x.
std::vector<SeriesGroup> groupSeries(const std::vector<const RunSeries*>& runs,
                                     const std::vector<std::string>& keys,
                                     const std::string& metric, SeriesX x);

} // namespace tb

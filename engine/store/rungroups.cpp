// groupSeries: each group's runs resampled onto the union of their x values, then reduced.
#include "store/rungroups.h"

#include "store/runexport.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb {

namespace {

// A run's value at x by linear interpolation between its finite points, or NaN outside them.
double valueAt(const SeriesPoints& p, double x) {
    const auto it = std::lower_bound(p.x.begin(), p.x.end(), x);
    const auto i = static_cast<std::size_t>(it - p.x.begin());
    if (i < p.x.size() && p.x[i] == x)
        return p.y[i];
    if (i == 0 || i >= p.x.size())
        return std::numeric_limits<double>::quiet_NaN();
    const double t = (x - p.x[i - 1]) / (p.x[i] - p.x[i - 1]);
    return p.y[i - 1] + t * (p.y[i] - p.y[i - 1]);
}

} // namespace

std::string groupLabel(const RunRecord& run, const std::vector<std::string>& keys) {
    if (keys.empty())
        return "(all runs)";
    const std::map<std::string, std::string> config = flattenJson(run.config);
    std::string label;
    for (const std::string& key : keys) {
        const auto it = config.find(key);
        label += (label.empty() ? "" : ", ") + key + "=" +
                 (it == config.end() ? std::string("(absent)") : it->second);
    }
    return label;
}

std::vector<SeriesGroup> groupSeries(const std::vector<const RunSeries*>& runs,
                                     const std::vector<std::string>& keys,
                                     const std::string& metric, SeriesX x) {
    std::vector<SeriesGroup> groups;
    std::vector<std::vector<SeriesPoints>> members;
    for (const RunSeries* run : runs) {
        const std::string label = groupLabel(run->record(), keys);
        auto it = std::find_if(groups.begin(), groups.end(),
                               [&](const SeriesGroup& g) { return g.label == label; });
        if (it == groups.end()) {
            groups.push_back({label, {}, {}, {}, {}, {}, {}, {}});
            members.emplace_back();
            it = groups.end() - 1;
        }
        it->runIds.push_back(run->record().id);
        members[static_cast<std::size_t>(it - groups.begin())].push_back(run->points(metric, x));
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
        SeriesGroup& group = groups[g];
        std::vector<double> grid;
        for (const SeriesPoints& p : members[g])
            for (std::size_t i = 0; i < p.x.size(); ++i)
                if (std::isfinite(p.x[i]) && std::isfinite(p.y[i]))
                    grid.push_back(p.x[i]);
        std::sort(grid.begin(), grid.end());
        grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
        std::vector<double> values;
        for (double at : grid) {
            values.clear();
            for (const SeriesPoints& p : members[g])
                if (const double v = valueAt(p, at); std::isfinite(v))
                    values.push_back(v);
            if (values.empty())
                continue;
            const double n = static_cast<double>(values.size());
            double mean = 0.0, squares = 0.0;
            for (double v : values)
                mean += v / n;
            for (double v : values)
                squares += (v - mean) * (v - mean);
            const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
            group.x.push_back(at);
            group.mean.push_back(mean);
            group.min.push_back(*lo);
            group.max.push_back(*hi);
            group.stddev.push_back(std::sqrt(squares / n));
            group.count.push_back(static_cast<int>(values.size()));
        }
    }
    return groups;
}

} // namespace tb

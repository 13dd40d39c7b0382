// Parameter importance: the runs as a table of key values, Pearson's r per key, a seeded dlib
// random forest, and each key's permutation importance on it.
#include "experiments/parameterimportance.h"

#include "backend/kernels/random_math.h"
#include "core/errors.h"
#include "store/runexport.h"
#include "store/runrecord.h"
#include "store/runsummary.h"
#include "train/runconfig.h"

#include <dlib/random_forest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

namespace tb {

namespace {

using Sample = dlib::matrix<double, 0, 1>;

// Shuffles of a key's column averaged per key: few runs make one shuffle noisy.
constexpr int kShuffles = 20;
constexpr int kTrees = 200;

std::optional<double> number(const std::string& text) {
    if (text == "true")
        return 1.0;
    if (text == "false")
        return 0.0;
    double v = 0.0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (error != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return v;
}

std::optional<double> pearson(const std::vector<double>& x, const std::vector<double>& y) {
    const double n = static_cast<double>(x.size());
    const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
    const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
    double sxy = 0.0, sxx = 0.0, syy = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (sxx <= 0.0 || syy <= 0.0)
        return std::nullopt;
    return sxy / std::sqrt(sxx * syy);
}

double meanSquaredError(const dlib::random_forest_regression_function<>& forest,
                        const std::vector<Sample>& x, const std::vector<double>& y) {
    double sum = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double e = forest(x[i]) - y[i];
        sum += e * e;
    }
    return sum / static_cast<double>(x.size());
}

} // namespace

ImportanceReport parameterImportance(const std::vector<RunRecord>& runs, const std::string& metric,
                                     const std::vector<std::string>& keys, uint64_t seed) {
    const SummaryMetric* m = findSummaryMetric(metric);
    if (!m)
        throw ConfigError("metric", "'" + metric + "' is not a run summary metric; one of " +
                                        summaryMetricNames());
    ImportanceReport report;
    report.metric = m->name;

    std::vector<const RunRecord*> used;
    std::vector<double> y;
    for (const RunRecord& run : runs)
        if (const auto v = summaryValue(run, m->name); v && std::isfinite(*v)) {
            used.push_back(&run);
            y.push_back(*v);
        }
    report.runs = static_cast<int>(used.size());
    if (!report.enoughRuns())
        return report;

    std::vector<RunRecord> usedRuns;
    for (const RunRecord* run : used)
        usedRuns.push_back(*run);
    std::vector<std::string> columns = keys;
    if (columns.empty())
        for (const ConfigDifference& d : configDifferences(usedRuns))
            if (!isLoggingKey(d.key))
                columns.push_back(d.key);
    if (columns.empty())
        return report;

    // Each key's column: numbers as they are, anything else coded by its sorted category.
    const std::size_t n = used.size(), k = columns.size();
    std::vector<std::vector<double>> table(k, std::vector<double>(n));
    for (std::size_t c = 0; c < k; ++c) {
        std::vector<std::string> text(n);
        bool numeric = true;
        for (std::size_t i = 0; i < n; ++i) {
            const auto flat = flattenJson(used[i]->config);
            const auto it = flat.find(columns[c]);
            text[i] = it == flat.end() ? "" : it->second;
            numeric = numeric && number(text[i]).has_value();
        }
        const std::set<std::string> distinct(text.begin(), text.end());
        KeyImportance key;
        key.key = columns[c];
        key.categorical = !numeric;
        key.distinctValues = static_cast<int>(distinct.size());
        for (std::size_t i = 0; i < n; ++i)
            table[c][i] =
                numeric
                    ? *number(text[i])
                    : static_cast<double>(std::distance(distinct.begin(), distinct.find(text[i])));
        if (numeric || distinct.size() == 2)
            key.correlation = pearson(table[c], y);
        report.keys.push_back(key);
    }

    std::vector<Sample> x(n, Sample(static_cast<long>(k)));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < k; ++c)
            x[i](static_cast<long>(c)) = table[c][i];
    dlib::random_forest_regression_trainer<dlib::dense_feature_extractor> trainer;
    trainer.set_seed("trainbench-importance-" + std::to_string(seed));
    trainer.set_num_trees(kTrees);
    trainer.set_min_samples_per_leaf(2); // sweeps are tens of runs, not thousands
    trainer.set_feature_subsampling_fraction(1.0);
    std::vector<double> outOfBag;
    const auto forest = trainer.train(x, y, outOfBag);

    const double mean = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(n);
    double variance = 0.0, oobError = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        variance += (y[i] - mean) * (y[i] - mean);
        oobError += (outOfBag[i] - y[i]) * (outOfBag[i] - y[i]);
    }
    report.outOfBagR2 = variance > 0.0 ? 1.0 - oobError / variance : 0.0;

    // Permutation importance: how much worse the forest predicts once a key's values are
    // shuffled between the runs (Fisher-Yates on a counter-based stream: the same everywhere).
    const double baseline = meanSquaredError(forest, x, y);
    double total = 0.0;
    for (std::size_t c = 0; c < k; ++c) {
        double rise = 0.0;
        for (int s = 0; s < kShuffles; ++s) {
            std::vector<Sample> shuffled = x;
            for (std::size_t i = n - 1; i > 0; --i) {
                const uint64_t draw = math::mix64(seed * 1000003 + c, uint64_t(s) * n + i);
                const std::size_t j = static_cast<std::size_t>(draw % (i + 1));
                std::swap(shuffled[i](static_cast<long>(c)), shuffled[j](static_cast<long>(c)));
            }
            rise += meanSquaredError(forest, shuffled, y) - baseline;
        }
        report.keys[c].mseIncrease = std::max(0.0, rise / kShuffles);
        total += report.keys[c].mseIncrease;
    }
    for (KeyImportance& key : report.keys)
        key.importance = total > 0.0 ? key.mseIncrease / total : 0.0;
    std::stable_sort(report.keys.begin(), report.keys.end(),
                     [](const auto& a, const auto& b) { return a.importance > b.importance; });
    return report;
}

} // namespace tb

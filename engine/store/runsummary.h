// The numbers that sum a finished run up, by name: what a sweep ranks its trials by, what
// parameter importance explains, what the parameters and parallel-coordinates plots put on an
// axis. One list, so the CLI, the sweep files and the window name them alike.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

struct RunRecord;

struct SummaryMetric {
    std::string name;           // best_val_acc, final_val_loss, ...
    bool higherIsBetter;        // the natural goal when a sweep ranks by it
    bool measuredWhileTraining; // known at every epoch (halving can judge a trial by it)
    std::string unit;           // "" for fractions and losses; "samples/s", "MiB", "s"
};

const std::vector<SummaryMetric>& summaryMetrics();
// A metric by its name or a curve's name for its final value ("val/acc", "val/loss",
// "train/loss"); null when neither.
const SummaryMetric* findSummaryMetric(std::string_view name);
// "best_val_acc, final_val_acc, ..." for error messages.
std::string summaryMetricNames();

// The run's value of the metric, when it was measured (accuracies as fractions).
std::optional<double> summaryValue(const RunRecord& run, std::string_view metric);

} // namespace tb

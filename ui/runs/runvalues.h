// A recorded run's values by key, as the parameters plot and the parallel coordinates place it:
// the summary metrics (store/runsummary.h; accuracies in percent), then its flattened config.
#pragma once

#include <QString>
#include <QStringList>

#include <map>
#include <vector>

namespace tb {
struct RunRecord;
}

namespace tb::ui {

using RunValues = std::map<QString, QString>;

RunValues valuesOfRun(const RunRecord& run);
// The summary metrics' names, in summaryMetrics() order.
QStringList summaryKeys();
// The config keys, less the logging ones (name, tags, checkpoint_dir, ...), whose value is not
// the same in every run (a missing
// value counts as one), sorted.
QStringList differingConfigKeys(const std::vector<RunValues>& runs);

} // namespace tb::ui

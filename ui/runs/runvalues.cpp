// valuesOfRun: summary values scaled for display, then the config as flattened text.
#include "runs/runvalues.h"

#include "store/runexport.h"
#include "store/runrecord.h"
#include "store/runsummary.h"
#include "train/runconfig.h"

#include <cmath>
#include <set>

namespace tb::ui {

RunValues valuesOfRun(const RunRecord& run) {
    RunValues v;
    for (const SummaryMetric& m : summaryMetrics()) {
        const auto value = summaryValue(run, m.name);
        if (!value || !std::isfinite(*value))
            continue;
        const bool accuracy = m.name.ends_with("_acc");
        v[QString::fromStdString(m.name)] =
            QString::number(*value * (accuracy ? 100.0 : 1.0), 'g', 8);
    }
    for (const auto& [key, value] : flattenJson(run.config))
        v[QString::fromStdString(key)] = QString::fromStdString(value);
    return v;
}

QStringList summaryKeys() {
    QStringList out;
    for (const SummaryMetric& m : summaryMetrics())
        out << QString::fromStdString(m.name);
    return out;
}

QStringList differingConfigKeys(const std::vector<RunValues>& runs) {
    const QStringList summary = summaryKeys();
    std::set<QString> all;
    for (const RunValues& values : runs)
        for (const auto& [key, value] : values)
            all.insert(key);
    QStringList out;
    for (const QString& key : all) {
        if (summary.contains(key) || isLoggingKey(key.toStdString()))
            continue;
        std::set<QString> distinct;
        for (const RunValues& values : runs) {
            const auto it = values.find(key);
            distinct.insert(it == values.end() ? QString() : it->second);
        }
        if (distinct.size() > 1)
            out << key;
    }
    return out;
}

} // namespace tb::ui

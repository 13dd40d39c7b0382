// The run summary metrics and where a run record keeps each.
#include "store/runsummary.h"

#include "data/dataconfig.h"
#include "store/runrecord.h"

namespace tb {

const std::vector<SummaryMetric>& summaryMetrics() {
    static const std::vector<SummaryMetric> metrics = {
        {"best_val_acc", true, true, ""},
        {"final_val_acc", true, true, ""},
        {"best_map50_95", true, true, ""}, // detectors' (their validation score)
        {"best_miou", true, true, ""},     // segmentations' (their validation score)
        {"final_val_loss", false, true, ""},
        {"final_train_loss", false, true, ""},
        {"samples_per_s", true, false, "samples/s"},
        {"peak_memory_mb", false, false, "MiB"},
        {"duration_s", false, false, "s"},
    };
    return metrics;
}

const SummaryMetric* findSummaryMetric(std::string_view name) {
    if (name == "val/acc")
        name = "final_val_acc";
    else if (name == "val/loss")
        name = "final_val_loss";
    else if (name == "train/loss")
        name = "final_train_loss";
    for (const SummaryMetric& m : summaryMetrics())
        if (m.name == name)
            return &m;
    return nullptr;
}

std::string summaryMetricNames() {
    std::string out;
    for (const SummaryMetric& m : summaryMetrics())
        out += (out.empty() ? "" : ", ") + m.name;
    return out;
}

std::optional<double> summaryValue(const RunRecord& run, std::string_view metric) {
    const SummaryMetric* m = findSummaryMetric(metric);
    if (!m)
        return std::nullopt;
    const std::string& name = m->name;
    if (name == "best_val_acc")
        return run.bestValAcc;
    if (name == "best_map50_95")
        return isDetectionDataset(run.dataset) ? run.bestValAcc : std::nullopt;
    if (name == "best_miou")
        return run.bestMeanIoU;
    if (name == "final_val_acc")
        return run.finalValAcc;
    if (name == "final_val_loss")
        return run.finalValLoss;
    if (name == "final_train_loss")
        return run.finalTrainLoss;
    if (name == "samples_per_s")
        return run.meanSamplesPerSec;
    if (name == "peak_memory_mb" && run.peakMemoryBytes)
        return static_cast<double>(*run.peakMemoryBytes) / (1024.0 * 1024.0);
    if (name == "duration_s")
        return run.durationSec;
    return std::nullopt;
}

} // namespace tb

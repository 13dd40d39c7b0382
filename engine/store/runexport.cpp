// JSON and CSV forms of runs and their metrics; config flattening and comparison.
#include "store/runexport.h"

#include "store/runstore.h"

#include <charconv>
#include <cmath>
#include <set>

namespace tb {

namespace {

using nlohmann::json;

template <typename T> json orNull(const std::optional<T>& v) {
    return v ? json(*v) : json();
}
json orNull(double v) {
    return std::isfinite(v) ? json(v) : json();
}

// Shortest text that reads back as the same double; empty for NaN.
std::string number(double v) {
    if (std::isnan(v))
        return {};
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, end) : std::string();
}

std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos)
        return s;
    std::string quoted = "\"";
    for (char c : s)
        quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

void flattenInto(const json& j, const std::string& prefix,
                 std::map<std::string, std::string>& out) {
    if (j.is_object() && !j.empty()) {
        for (auto it = j.begin(); it != j.end(); ++it)
            flattenInto(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
        return;
    }
    out[prefix] = j.is_string() ? j.get<std::string>()
                                : j.dump(-1, ' ', false, json::error_handler_t::replace);
}

constexpr const char* kCsvHeader =
    "kind,step,epoch,samples_seen,time,loss,lr,step_ms,data_wait_ms,h2d_ms,forward_ms,"
    "backward_ms,optimizer_ms,samples_per_s,loss_scale,skipped,train_loss,train_acc,val_loss,"
    "val_acc,epoch_seconds,epoch_samples_per_s,checkpoint";

} // namespace

json runToJson(const RunRecord& r) {
    return json{{"id", r.id},
                {"name", r.name},
                {"status", toString(r.status)},
                {"started_at", r.startedAt},
                {"ended_at", orNull(r.endedAt)},
                {"model", r.model},
                {"dataset", r.dataset},
                {"device", r.device},
                {"ranks", ranksOf(r)},
                {"effective_batch", effectiveBatchOf(r)},
                {"tags", r.tags},
                {"notes", r.notes},
                {"steps", r.steps},
                {"epochs", r.epochs},
                {"best_val_acc", orNull(r.bestValAcc)},
                {"best_epoch", orNull(r.bestEpoch)},
                {"best_miou", orNull(r.bestMeanIoU)},
                {"final_train_loss", orNull(r.finalTrainLoss)},
                {"final_val_loss", orNull(r.finalValLoss)},
                {"final_val_acc", orNull(r.finalValAcc)},
                {"mean_samples_per_s", orNull(r.meanSamplesPerSec)},
                {"peak_memory_bytes", orNull(r.peakMemoryBytes)},
                {"duration_s", orNull(r.durationSec)},
                {"resumed_from_step", r.resumedFromStep},
                {"error", r.error},
                {"checkpoint", r.checkpoint},
                {"color", r.color},
                {"config", r.config},
                {"environment", r.environment}};
}

json stepToJson(const StepEvent& s) {
    json out{{"step", s.step},
             {"epoch", s.epoch},
             {"samples_seen", s.samplesSeen},
             {"time", orNull(s.unixTime)},
             {"loss", orNull(s.loss)},
             {"lr", orNull(s.lr)},
             {"step_ms", orNull(s.stepMs)},
             {"data_wait_ms", orNull(s.dataWaitMs)},
             {"h2d_ms", orNull(s.h2dMs)},
             {"forward_ms", orNull(s.forwardMs)},
             {"backward_ms", orNull(s.backwardMs)},
             {"optimizer_ms", orNull(s.optimizerMs)},
             {"samples_per_s", orNull(s.samplesPerSec)},
             {"loss_scale", orNull(s.lossScale)},
             {"skipped", s.skipped},
             {"grad_norm", s.gradNorm > 0.0 ? json(s.gradNorm) : json()},
             {"clipped", s.clippedSteps}};
    for (const LossTerm& t : s.lossTerms) // a detector's "box_loss", "cls_loss", "dfl_loss"
        out[t.name + "_loss"] = orNull(t.value);
    return out;
}

json epochToJson(const EpochEvent& e) {
    json out{{"epoch", e.epoch},
             {"step", e.step},
             {"train_loss", orNull(e.trainLoss)},
             {"train_acc", orNull(e.trainAcc)},
             {"val_loss", orNull(e.valLoss)},
             {"val_acc", orNull(e.valAcc)},
             {"seconds", orNull(e.seconds)},
             {"samples_per_s", orNull(e.samplesPerSec)},
             {"checkpoint", e.checkpoint}};
    if (!e.sample.empty())
        out["sample"] = e.sample;
    return out;
}

std::map<std::string, std::string> flattenJson(const json& j) {
    std::map<std::string, std::string> out;
    if (j.is_object())
        flattenInto(j, "", out);
    else if (!j.is_null())
        out[""] = j.dump();
    return out;
}

std::vector<ConfigDifference> configDifferences(const std::vector<RunRecord>& runs) {
    std::vector<std::map<std::string, std::string>> flat;
    std::set<std::string> keys;
    for (const RunRecord& r : runs) {
        flat.push_back(flattenJson(r.config));
        for (const auto& [k, v] : flat.back())
            keys.insert(k);
    }
    std::vector<ConfigDifference> diffs;
    for (const std::string& key : keys) {
        ConfigDifference d{key, {}};
        for (const auto& f : flat) {
            const auto it = f.find(key);
            d.values.push_back(it == f.end() ? std::nullopt : std::optional(it->second));
        }
        bool differ = false;
        for (const auto& v : d.values)
            differ = differ || v != d.values.front();
        if (differ)
            diffs.push_back(std::move(d));
    }
    return diffs;
}

void exportRunCsv(RunStore& store, const std::string& runId, std::ostream& out) {
    out << kCsvHeader << '\n';
    for (const StepEvent& s : store.stepMetrics(runId)) {
        out << "step," << s.step << ',' << s.epoch << ',' << s.samplesSeen << ','
            << number(s.unixTime) << ',' << number(s.loss) << ',' << number(s.lr) << ','
            << number(s.stepMs) << ',' << number(s.dataWaitMs) << ',' << number(s.h2dMs) << ','
            << number(s.forwardMs) << ',' << number(s.backwardMs) << ',' << number(s.optimizerMs)
            << ',' << number(s.samplesPerSec) << ',' << number(s.lossScale) << ','
            << (s.skipped ? 1 : 0) << ",,,,,,,\n";
    }
    for (const EpochEvent& e : store.epochMetrics(runId)) {
        out << "epoch," << e.step << ',' << e.epoch << ",,,,,,,,,,,,,," << number(e.trainLoss)
            << ',' << number(e.trainAcc) << ',' << number(e.valLoss) << ',' << number(e.valAcc)
            << ',' << number(e.seconds) << ',' << number(e.samplesPerSec) << ','
            << csvField(e.checkpoint) << '\n';
    }
}

void exportRunJson(RunStore& store, const std::string& runId, std::ostream& out) {
    json steps = json::array();
    for (const StepEvent& s : store.stepMetrics(runId))
        steps.push_back(stepToJson(s));
    json epochs = json::array();
    for (const EpochEvent& e : store.epochMetrics(runId))
        epochs.push_back(epochToJson(e));
    const json doc{{"run", runToJson(store.getRun(runId))}, {"steps", steps}, {"epochs", epochs}};
    out << doc.dump(2, ' ', false, json::error_handler_t::replace) << '\n';
}

} // namespace tb

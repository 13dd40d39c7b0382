// What the run store returns: one run with its summary, and the rows of its logs. Metric rows
// reuse the event structs (StepEvent, EpochEvent, SystemSample) the trainer emits.
#pragma once

#include "events/events.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb {

// One row of `runs` plus its tags. Summary values are missing until measured; a running or
// interrupted run has the values of its last committed epoch.
struct RunRecord {
    std::string id;
    std::string name;
    RunStatus status = RunStatus::Running;
    double startedAt = 0.0; // Unix seconds
    std::optional<double> endedAt;
    nlohmann::json config = nlohmann::json::object();
    nlohmann::json environment = nlohmann::json::object();
    nlohmann::json modelSummary = nlohmann::json::object();
    std::string dataset;
    std::string model;
    std::string device;
    std::string notes;
    std::vector<std::string> tags; // sorted
    std::optional<int64_t> stepsPerEpoch;
    std::optional<int64_t> totalSteps;
    int64_t resumedFromStep = 0;
    std::optional<double> bestValAcc;
    std::optional<double> bestMeanIoU; // a segmentation's best epoch's (its valAcc: pixels)
    std::optional<int64_t> bestEpoch;
    std::optional<double> finalTrainLoss;
    std::optional<double> finalValLoss;
    std::optional<double> finalValAcc;
    std::optional<double> meanSamplesPerSec;
    std::optional<uint64_t> peakMemoryBytes;
    std::optional<double> durationSec;
    int64_t steps = 0;
    int64_t epochs = 0;
    std::string error;
    std::string checkpoint;
    std::optional<int64_t> writerPid;
    std::string writerHost;
    std::string color; // "#rrggbb" once the run was drawn in a comparison; else empty
};

// The RunStartedEvent the run began with, as its record keeps it (a replay, a followed job).
inline RunStartedEvent startedEventOf(const RunRecord& r) {
    RunStartedEvent e;
    e.runId = r.id;
    e.name = r.name;
    e.config = r.config;
    e.environment = r.environment;
    e.modelSummary = r.modelSummary;
    e.device = r.device;
    e.stepsPerEpoch = r.stepsPerEpoch.value_or(0);
    e.totalSteps = r.totalSteps.value_or(0);
    e.resumedFromStep = r.resumedFromStep;
    e.resumed = r.resumedFromStep > 0;
    return e;
}

// How many processes trained a run: what its ranks recorded (environment "ranks"; a job started
// by one's own mpirun says so there), else its config's ranks key, else 1.
inline int64_t ranksOf(const RunRecord& r) {
    const int64_t configured = r.config.is_object() ? r.config.value("ranks", int64_t{1}) : 1;
    return r.environment.is_object() ? r.environment.value("ranks", configured) : configured;
}

// Samples per optimizer step: ranks x batch_size x accumulate_grad_batches.
inline int64_t effectiveBatchOf(const RunRecord& r) {
    if (!r.config.is_object())
        return 0;
    return ranksOf(r) * r.config.value("batch_size", int64_t{0}) *
           r.config.value("accumulate_grad_batches", int64_t{1});
}

// A log line or an advisor message of a run (table `events`).
struct RunLogEntry {
    enum class Kind { Log, Advice };
    int64_t id = 0;
    Kind kind = Kind::Log;
    LogLevel level = LogLevel::Info; // for logs
    std::string rule;                // for advice
    std::string message;
    std::optional<int64_t> step;
    double unixTime = 0.0;
};

// Which runs listRuns() returns. Empty fields match everything.
struct RunFilter {
    std::optional<RunStatus> status;
    std::string model;
    std::string dataset;
    std::string tag;
    int limit = 0; // 0: all
};

// "debug", "info", "warning", "error" and back; unknown text reads as Info.
std::string toString(LogLevel level);
LogLevel logLevelFromString(const std::string& s);

} // namespace tb

// What a training run reports while it runs. Sinks (run store, terminal, UI bridge) consume
// them; the trainer never knows who listens. Events carry no run id of their own: where they
// are queued for views of many runs they are tagged with their source (EventSource).
#pragma once

#include "core/systemsample.h"
#include "events/profilereport.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace tb {

enum class RunStatus { Running, Completed, Stopped, Failed, Interrupted };
std::string toString(RunStatus s);
RunStatus runStatusFromString(const std::string& s);

struct RunStartedEvent {
    std::string runId;
    std::string name;
    nlohmann::json config;      // RunConfig::toJson()
    nlohmann::json environment; // device, backend, library versions, host
    nlohmann::json modelSummary;
    std::string device;        // "cpu" or "cuda:0"
    int64_t stepsPerEpoch = 0; // optimizer steps
    int64_t totalSteps = 0;    // bound from max_epochs / max_steps
    int64_t resumedFromStep = 0;
    // Continues the recorded run with this id (train --resume): set even when the resume fails
    // before resumedFromStep is known, so the record is not mistaken for a new run.
    bool resumed = false;
};

// One rank's share of a logged interval of a data-parallel run, in ms per step.
struct RankStepTimes {
    double stepMs = 0.0;
    double dataWaitMs = 0.0;
    double computeMs = 0.0;   // forward, backward and the optimizer
    double allReduceMs = 0.0; // the gradients' all-reduce time that backward did not hide
};

// The optimizer steps of one logging interval (log_every_n_steps, as Lightning's): `step` is
// the last of them; loss and times are means per step over the interval (loss unscaled).
// Values are read back from the device once per interval, never per step.
// One named part of a loss made of several (a detector's "box", "cls" and "dfl", each after
// its gain): the terms of a step add up to its loss.
struct LossTerm {
    std::string name;
    double value = 0.0;
};

struct StepEvent {
    int64_t step = 0; // 1-based optimizer step
    int64_t epoch = 0;
    int64_t samplesSeen = 0;
    double unixTime = 0.0;
    double loss = 0.0;
    double lr = 0.0;
    double stepMs = 0.0;
    double dataWaitMs = 0.0;
    double h2dMs = 0.0;
    double forwardMs = 0.0;
    double backwardMs = 0.0;
    double optimizerMs = 0.0;
    double allReduceMs = 0.0;   // data-parallel runs: the all-reduce time backward did not hide
    double samplesPerSec = 0.0; // of the whole job
    double lossScale = 1.0;     // 1 unless 16-mixed
    bool skipped = false;       // the GradScaler skipped at least one update of the interval
    // With gradient_clip_val: the largest global gradient norm of the interval (before
    // clipping, unscaled) and how many of its steps were clipped; 0 and 0 without.
    double gradNorm = 0.0;
    int clippedSteps = 0;
    std::vector<LossTerm> lossTerms;  // the interval's mean of each term; empty for one-term losses
    std::vector<RankStepTimes> ranks; // data-parallel runs: every rank's, in rank order
};

// A validation sample the model got wrong: where it is in the validation split, its label, the
// prediction and its softmax probability, and the input as the model saw it (normalised).
struct MisclassifiedSample {
    int64_t index = 0;
    int32_t label = 0;
    int32_t predicted = 0;
    float confidence = 0.0f;
    std::vector<int64_t> shape; // one sample's: {channels, height, width} or {features}
    std::vector<float> pixels;
};

// A detector's validation, as COCO's evaluation and Ultralytics' report it: mAP at IoU 0.5 and
// averaged over 0.50:0.95, precision and recall where the IoU-0.5 curve's F1 is best, the
// validation loss's three terms, and each class's figures.
struct DetectionClassResult {
    std::string name;
    int64_t instances = 0; // ground-truth boxes (crowd regions left out)
    double ap50 = 0.0, ap5095 = 0.0;
    double precision = 0.0, recall = 0.0;
    // The precision-recall curve at IoU 0.5: precision at recall 0, 0.01, ..., 1 (COCO's).
    std::vector<double> precision50;
};

struct DetectionReport {
    double map50 = 0.0, map5095 = 0.0;
    double precision = 0.0, recall = 0.0;
    double boxLoss = 0.0, clsLoss = 0.0, dflLoss = 0.0;
    int64_t images = 0, instances = 0;
    std::vector<DetectionClassResult> classes; // the classes with ground truth
    // Every class of the set, and the confusion matrix over them and the background (last):
    // (n + 1) x (n + 1) counts, row = true class, column = predicted (detect/detectionconfusion.h).
    std::vector<std::string> classNames;
    std::vector<int64_t> confusion;
};

// One validation image's score: the mean IoU over the classes its mask or its prediction holds.
struct ImageIoU {
    int64_t index = 0; // in the validation split's order
    double meanIoU = 0.0;
};

// A segmentation's validation, as torchvision's reference scripts score it: a confusion matrix
// over every counted pixel (the ignore index left out), pixel accuracy, and each class's IoU and
// their mean over the classes present (segment/segmentationconfusion.h).
struct SegmentationReport {
    double meanIoU = 0.0, pixelAccuracy = 0.0;
    std::vector<std::string> classNames;
    std::vector<double> iou, classAccuracy; // per class; NaN where the class has none
    int64_t images = 0, pixels = 0;
    std::vector<int64_t> confusion; // classes x classes, row = true class, column = predicted
    // The images the model did worst on, worst first (at most kKeptWorstImages): where to look.
    std::vector<ImageIoU> worstImages;
    static constexpr std::size_t kKeptWorstImages = 32;
};

// What one validation pass got right and wrong, class by class.
struct ValidationReport {
    int classes = 0;
    std::vector<std::string> classNames;
    // classes x classes counts, row-major: row = true label, column = predicted class.
    std::vector<int64_t> confusion;
    // The first misclassified samples in validation order (at most kKeptMisclassified).
    std::vector<MisclassifiedSample> misclassified;
    static constexpr std::size_t kKeptMisclassified = 48;
    // A detector's figures (its report has no confusion matrix: classes stays 0).
    std::optional<DetectionReport> detection;
    // A segmentation's (classes stays 0 here too: the matrix is the report's, over pixels).
    std::optional<SegmentationReport> segmentation;

    int64_t count(int label, int predicted) const {
        return confusion[static_cast<std::size_t>(label * classes + predicted)];
    }
};

struct EpochEvent {
    int64_t epoch = 0; // 1-based
    int64_t step = 0;
    double trainLoss = 0.0;
    double trainAcc = 0.0;
    double valLoss = 0.0;
    double valAcc = 0.0;
    double seconds = 0.0;
    double samplesPerSec = 0.0;
    std::string checkpoint; // path written at the end of this epoch, if any
    ValidationReport validation;
    // A language model's: text it wrote after this epoch's validation (TextGenerator: no
    // prompt, temperature 0.8, the epoch as seed), so a run shows it learning to spell.
    std::string sample;
    // max_steps ended the run inside this epoch, at `step`: it was validated there, where the
    // run ended (a later resume that completes the epoch replaces its row).
    bool partial = false;
};

struct SystemSampleEvent {
    SystemSample sample;
};

enum class LogLevel { Debug, Info, Warning, Error };
struct LogEvent {
    LogLevel level = LogLevel::Info;
    std::string message;
    double unixTime = 0.0;
};

// A rule of the advisor fired: `rule` is a stable id ("low-gpu-util"), message is for people.
struct AdviceEvent {
    std::string rule;
    std::string message;
    int64_t step = 0;
    double unixTime = 0.0;
};

struct RunSummary {
    double bestValAcc = 0.0;
    int64_t bestEpoch = 0;
    double finalTrainLoss = 0.0;
    double finalValLoss = 0.0;
    double finalValAcc = 0.0;
    double meanSamplesPerSec = 0.0;
    uint64_t peakMemoryBytes = 0; // device memory for GPU runs, process RSS for CPU runs
    double durationSec = 0.0;
    int64_t steps = 0;
    int64_t epochs = 0;
};

// The trainer paused (between two optimizer steps) or went on again.
struct PauseEvent {
    bool paused = false;
    int64_t step = 0; // optimizer steps done when it paused or resumed
    double unixTime = 0.0;
};

// Why a run failed, for a UI that reacts without parsing text (mark the field, offer a retry).
enum class FailureKind {
    None,
    Config,
    Dataset,
    OutOfMemory,
    NonFiniteLoss,
    Backend,
    Distributed, // a rank died, hung or disagreed; subject is "rank N" when known
    Internal
};
std::string toString(FailureKind kind);

struct RunFailure {
    FailureKind kind = FailureKind::None;
    // The config key (Config; "lr" for NonFiniteLoss, "device" for Backend) or the file
    // (Dataset) the failure is about; empty when none.
    std::string subject;
    // Config keys and values that should make the run fit, e.g. for out of memory half the
    // batch_size and twice accumulate_grad_batches: the same effective batch. Empty when none.
    std::vector<std::pair<std::string, std::string>> retryChanges;
};

struct RunFinishedEvent {
    RunStatus status = RunStatus::Completed;
    std::string error; // what() of the error that failed the run
    RunFailure failure;
    RunSummary summary;
    std::string checkpoint; // last checkpoint written
};

// A profile of a few steps finished (Trainer::requestProfile): each layer's time per pass and
// its place under the roofline.
struct ProfileEvent {
    ProfileReport report;
};

using Event = std::variant<RunStartedEvent, StepEvent, EpochEvent, SystemSampleEvent, LogEvent,
                           AdviceEvent, PauseEvent, RunFinishedEvent, ProfileEvent>;

// Where an event came from: the run it belongs to and, in a data-parallel job, the rank that
// sent it. An empty runId: about no run (telemetry while none trains).
struct EventSource {
    std::string runId;
    int rank = 0;
    bool operator==(const EventSource&) const = default;
};

struct TaggedEvent {
    EventSource source;
    Event event;
};

// Receives a run's events on the trainer's thread (or the sampler's, for system samples).
// Implementations must return quickly: slow work (disk, UI) belongs on their own thread.
class EventSink {
public:
    virtual ~EventSink() = default;
    virtual void onEvent(const Event& event) = 0;
};

} // namespace tb

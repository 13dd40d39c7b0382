// Times full training steps (forward, loss, backward, SGD update) of a zoo model on an
// in-memory synthetic batch, so the data loader is not measured.
#pragma once

#include "backend/opdesc.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>

namespace tb {

class DetectionObjective;

class Graph;
class GradScaler;
class Optimizer;
class Tensor;

struct StepBenchOptions {
    std::string model = "mlp";
    std::string input; // sample shape "3x32x32"; empty = the model's default
    int64_t batch = 128;
    int steps = 30;
    int warmup = 5;
    int threads = 0;
    std::string device = "cpu";
    std::string precision = "32";
    nlohmann::json modelOptions = nlohmann::json::object();
    // As the config keys of the same names: a run's defaults.
    std::string memoryFormat = "auto";
    std::string convAlgorithm = "auto";
    bool flushDenormals = true;
    // Asynchronous backends only: after the per-step timing, steps are issued back to back for at
    // least this long (the steady state of a training run) and timed as a whole.
    double steadySeconds = 3.0;
    // Called with true when that back-to-back window starts and false when it ends, so a caller
    // can sample GPU utilisation there alone.
    std::function<void(bool)> onSteadyState;
};

struct StepBenchResult {
    std::string device;
    std::string backend;
    double medianStepMs = 0.0;
    double p90StepMs = 0.0;
    double maxStepMs = 0.0;
    double samplesPerSec = 0.0;
    // Median time the host needs to issue one step (all calls returned, before waiting for the
    // device). On the CPU backend this is the whole step.
    double hostStepMs = 0.0;
    // Asynchronous backends: mean step time with steps issued back to back (0 when not run).
    double steadyStepMs = 0.0;
    double steadySamplesPerSec = 0.0;
    int steadySteps = 0;
    // Asynchronous backends with pinned memory: the input pipeline's copy. h2dCopyMs is one
    // batch's copy from pinned memory on its own; pipelinedStepMs the back-to-back step when
    // each step first copies a new batch through the trainer's double-buffered slots; the
    // difference is the copy's exposed part, the rest of h2dCopyMs ran hidden under compute.
    double h2dCopyMs = 0.0;
    double pipelinedStepMs = 0.0;
    double peakRssMb = 0.0;
    double peakDeviceMb = 0.0;
    // FLOPs of one training step: the graph's forward FLOPs at this batch times 3 (forward,
    // backward data, backward weights: the usual estimate), and the rate the median step (the
    // back-to-back one where there is one) achieves.
    double stepGflop = 0.0;
    double achievedGflops = 0.0;
    // CPU only (0 elsewhere): the f32 peak of these threads (backend/cpu/cpupeak.h), whether it
    // was measured now or read from dataDirectory()/cpu-peak.json, and achievedGflops /
    // cpuPeakGflops.
    double cpuPeakGflops = 0.0;
    bool cpuPeakMeasured = false;
    double peakFraction = 0.0;
    // CPU only: oneDNN reorders (layout conversions) in the median timed step, all of them
    // and those of activations (the rest are of weights), the layouts the convolutions kept
    // their outputs in (cpulayout.h names, comma-separated), oneDNN's ISA and whether it
    // computes bf16 natively there (else bf16-mixed is emulated in f32).
    std::optional<int64_t> reordersPerStep;
    std::optional<int64_t> activationReordersPerStep;
    std::string convolutionLayouts;
    ConvAlgorithmCounts convolutionAlgorithms;
    std::string cpuIsa;
    bool cpuBf16Native = false;
};

StepBenchResult benchmarkSteps(const StepBenchOptions& options);

// One full step on a batch already on the graph's device: forward, loss (added to lossSum),
// backward, the GradScaler's check when there is one, an SGD/AdamW update at `lr`, and zeroed
// gradients. Issues work only: nothing waits for the device (but a detector's loss, which
// reads the head back: `detection` given, `labels` are its host box rows).
void trainingStep(Graph& graph, Optimizer& optimizer, GradScaler* scaler, const Tensor& x,
                  const Tensor& labels, Tensor& lossSum, float lr = 0.01f,
                  DetectionObjective* detection = nullptr);

// A detector's synthetic targets for benchmarks and tests: (batch, 4, 6) host rows of four
// boxes an image, of `classes` classes, placed by `seed` inside a side x side input.
Tensor syntheticBoxRows(int64_t batch, int64_t side, int classes, uint64_t seed);

} // namespace tb

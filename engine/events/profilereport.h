// Where a training step's time goes, layer by layer, and how close each layer comes to the
// machine's roofline: what a profile of a few steps reports (the trainer's ProfileEvent), what
// `trainbench-cli profile` prints and the run store keeps.
#pragma once

#include "core/roofline.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

// What bounds a layer: its arithmetic (compute), its memory traffic (memory), or neither, its
// time far above what both roofs allow (overhead: launches, threading, tiny tensors).
enum class Bound { Compute, Memory, Overhead, Unknown };
std::string toString(Bound bound);

// One layer in one pass (or a phase of the step: "h2d", "loss", "optimizer"), per step.
struct LayerProfile {
    std::string name;
    std::string type; // the layer's type; "phase" for the trainer's phases
    std::string pass; // "forward", "backward" or "phase"
    double ms = 0.0;  // mean per profiled step
    int64_t flops = 0;
    int64_t bytes = 0;         // read and written, from its shapes and dtypes
    double intensity = 0.0;    // flops / bytes
    double gflops = 0.0;       // achieved
    double gbs = 0.0;          // achieved
    double roofFraction = 0.0; // time the roofline allows / time taken
    Bound bound = Bound::Unknown;
};

// One span of the trace: a layer's pass, a phase or a data wait, on the step's timeline.
struct ProfileSpan {
    std::string name;
    std::string pass; // "forward", "backward", "phase" or "data" (the loader, on the host)
    int step = 0;
    double startMs = 0.0; // from the first profiled step's start (on its rank)
    double durationMs = 0.0;
    int rank = 0; // the data-parallel rank that ran it
};

struct ProfileReport {
    std::string model;
    std::string device;
    std::string precision;
    int64_t batch = 0;       // samples per micro-batch
    int64_t firstStep = 0;   // the optimizer step the profile began after (0-based)
    int steps = 0;           // profiled optimizer steps
    double stepMs = 0.0;     // mean wall time of a profiled step
    double dataWaitMs = 0.0; // mean per step the trainer waited for the loader
    double otherMs = 0.0;    // stepMs less every row and the data wait
    Roofline roofline;
    std::vector<LayerProfile> rows; // forward layers, backward layers, then phases
    std::vector<ProfileSpan> spans;
};

nlohmann::json toJson(const ProfileReport& report);
// Throws Error naming the field when `j` is not a profile.
ProfileReport profileReportFromJson(const nlohmann::json& j);

// The Chrome trace event format (Perfetto, chrome://tracing): one complete event ("ph":"X")
// per span, microseconds; a process per rank, in it the compute stream as one thread and the
// loader's waits as another.
nlohmann::json chromeTrace(const ProfileReport& report);

} // namespace tb

// From a profiled timeline to a ProfileReport: each span summed per layer and pass, each
// layer's work and memory traffic from the model's shapes, and where it sits under the
// machine's roofline (events/profilereport.h).
#pragma once

#include "events/profilereport.h"
#include "nn/graph.h"
#include "nn/steptimeline.h"

#include <map>
#include <string>
#include <vector>

namespace tb {

class Backend;

// A pass's arithmetic and the bytes it reads and writes, estimated from shapes: activations in
// the activation dtype, parameters and their gradients in f32; no cache reuse counted (a
// layer's tensors are streamed once), convolution workspaces and oneDNN's reorders left out.
struct LayerWork {
    int64_t flops = 0;
    int64_t bytes = 0;
};
// `inputElements`: of all the layer's inputs at the batch; `readsGraphInput`: its only input is
// the batch itself, so backward computes no data gradient.
LayerWork forwardWork(const LayerRow& row, int64_t inputElements, int activationBytes);
LayerWork backwardWork(const LayerRow& row, int64_t inputElements, int activationBytes,
                       bool readsGraphInput);
// The optimizer's traffic per step over `params` trainable parameters: SGD with momentum reads
// the weight, gradient and momentum and writes two of them; AdamW one moment more each way.
LayerWork optimizerWork(int64_t params, const std::string& optimizer, float momentum);

// A layer that reaches less than this fraction of what the roofline allows is bound by
// neither roof but by overhead (launches, threading, tiny tensors).
constexpr double kOverheadRoofFraction = 0.1;
// A compute-bound convolution above this fraction of the roof did fewer multiplications than
// the direct algorithm's FLOPs the rows count (Winograd's, or FFT on a GPU).
constexpr double kFewerMultiplicationsRoofFraction = 1.25;
// Fills row.intensity, gflops, gbs, roofFraction and bound from row.ms, flops and bytes.
void placeUnderRoofline(LayerProfile& row, const Roofline& roofline);

// The roofs of the backend's device at `precision`: on the CPU, the measured and cached f32
// sgemm peak (oneDNN's bf16 matmul's at bf16-mixed on a CPU with native bf16) and triad
// bandwidth of its threads (backend/cpu/cpupeak.h); elsewhere what the
// backend says (Backend::roofline: on a GPU, its datasheet rate and a measured copy).
Roofline machineRoofline(Backend& backend, const std::string& precision = "32");

struct ProfileContext {
    std::string model, device, precision, optimizer = "sgd";
    float momentum = 0.9f;
    int64_t batch = 0;
    std::map<std::string, int64_t> optimizerParams; // per optimizer span: the group's parameters
    int64_t firstStep = 0;
    double wallMs = 0.0;            // of all the profiled steps, data waits included
    std::vector<double> dataWaitMs; // per profiled step
    Roofline roofline;
};

ProfileReport buildProfileReport(Graph& graph, const std::vector<TimelineSpan>& spans,
                                 const ProfileContext& context);

// What bounds the step, for people: the share of the step each bound takes (and how near its
// roof), what helps each, and the experiment that shows it; the loader's wait when it matters.
std::vector<std::string> profileAdvice(const ProfileReport& report);

// The report as a table for a terminal: the roofs, one row per layer and pass, then the advice.
std::string formatProfileTable(const ProfileReport& report);

} // namespace tb

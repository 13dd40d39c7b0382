#include "train/layerprofile.h"

#include "backend/cpu/cpubackend.h"
#include "backend/cpu/cpuisa.h"
#include "backend/cpu/cpupeak.h"
#include "core/datadirectory.h"
#include "core/textformat.h"
#include "telemetry/hostinfo.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace tb {

namespace {

int64_t sizeOf(int64_t elements, int bytes) {
    return elements * bytes;
}

} // namespace

LayerWork forwardWork(const LayerRow& row, int64_t inputElements, int activationBytes) {
    return {row.flops,
            sizeOf(inputElements + row.output.numel(), activationBytes) + sizeOf(row.params, 4)};
}

LayerWork backwardWork(const LayerRow& row, int64_t inputElements, int activationBytes,
                       bool readsGraphInput) {
    // With parameters: the data gradient and the weight gradient each cost the forward's
    // arithmetic; a frozen layer computes only the first, a layer on the batch only the second.
    // Without: an elementwise pass of the forward's size.
    const bool dataGradient = !readsGraphInput;
    const bool weightGradient = row.params > 0 && !row.frozen;
    int64_t flops = row.flops;
    if (row.params > 0)
        flops = row.flops * ((dataGradient ? 1 : 0) + (weightGradient ? 1 : 0));
    // Reads the output's gradient and the input; writes the input's gradient; reads the weights
    // and reads and writes their (accumulated) gradients.
    const int64_t activations =
        row.output.numel() + inputElements + (dataGradient ? inputElements : 0);
    const int64_t params = row.params * (1 + (weightGradient ? 2 : 0));
    return {flops, sizeOf(activations, activationBytes) + sizeOf(params, 4)};
}

LayerWork optimizerWork(int64_t params, const std::string& optimizer, float momentum) {
    // f32 arrays streamed once: weight, gradient, then the state read and written.
    int64_t arrays = 3; // read weight and gradient, write weight
    if (optimizer == "adamw")
        arrays += 4; // two moments, read and written
    else if (momentum > 0.0f)
        arrays += 2;
    return {params * (optimizer == "adamw" ? 12 : 4), sizeOf(params * arrays, 4)};
}

void placeUnderRoofline(LayerProfile& row, const Roofline& roofline) {
    const double seconds = row.ms / 1e3;
    row.intensity = row.bytes > 0 ? static_cast<double>(row.flops) / row.bytes : 0.0;
    row.gflops = seconds > 0 ? static_cast<double>(row.flops) / seconds / 1e9 : 0.0;
    row.gbs = seconds > 0 ? static_cast<double>(row.bytes) / seconds / 1e9 : 0.0;
    row.bound = Bound::Unknown;
    row.roofFraction = 0.0;
    if (!roofline.known() || seconds <= 0.0 || (row.flops == 0 && row.bytes == 0))
        return;
    const double computeSeconds = static_cast<double>(row.flops) / (roofline.peakGflops * 1e9);
    const double memorySeconds = static_cast<double>(row.bytes) / (roofline.bandwidthGBs * 1e9);
    row.roofFraction = std::max(computeSeconds, memorySeconds) / seconds;
    if (row.roofFraction < kOverheadRoofFraction)
        row.bound = Bound::Overhead;
    else
        row.bound = computeSeconds >= memorySeconds ? Bound::Compute : Bound::Memory;
}

Roofline machineRoofline(Backend& backend, const std::string& precision) {
    auto* cpu = dynamic_cast<CpuBackend*>(&backend);
    if (!cpu) {
        Roofline r = backend.roofline(precision);
        if (!r.known())
            r.peakSource = r.bandwidthSource =
                "not known for " + backend.device().toString() + ": " + r.peakSource;
        return r;
    }
    Roofline r;
    const std::string model = readHostFacts().cpu.model;
    const std::string cache = dataDirectory() + "/cpu-peak.json";
    const std::string threads = std::to_string(cpu->threads()) + " thread(s)";
    // bf16 has its own roof where the CPU computes it natively; elsewhere (and for f16, which
    // oneDNN widens on every CPU but AMX-FP16's) the layers run at the f32 rate.
    const CpuLowPrecisionSupport support = cpuLowPrecisionSupport();
    const bool bf16 = precision == "bf16-mixed" && support.bf16Native;
    const CpuPeak peak = bf16 ? cachedCpuBf16Peak(cpu->threads(), model, cache)
                              : cachedCpuPeak(cpu->threads(), model, cache);
    const CpuPeak bandwidth = cachedCpuBandwidth(cpu->threads(), model, cache);
    r.peakGflops = peak.gflops;
    r.bandwidthGBs = bandwidth.gflops;
    r.peakSource = std::string(bf16 ? "oneDNN's bf16 matmul" : "oneDNN's f32 sgemm") + " on " +
                   threads + ", " + support.isa +
                   (peak.measured ? ", measured now" : ", cached in " + cache);
    r.bandwidthSource = "STREAM triad on " + threads +
                        (bandwidth.measured ? ", measured now" : ", cached in " + cache);
    return r;
}

ProfileReport buildProfileReport(Graph& graph, const std::vector<TimelineSpan>& spans,
                                 const ProfileContext& ctx) {
    ProfileReport report;
    report.model = ctx.model;
    report.device = ctx.device;
    report.precision = ctx.precision;
    report.batch = ctx.batch;
    report.firstStep = ctx.firstStep;
    report.steps = static_cast<int>(ctx.dataWaitMs.size());
    report.roofline = ctx.roofline;
    const double steps = std::max(1, report.steps);
    report.stepMs = ctx.wallMs / steps;
    for (double w : ctx.dataWaitMs)
        report.dataWaitMs += w / steps;

    const std::vector<LayerRow> layers = graph.summary(ctx.batch);
    const int actBytes = static_cast<int>(dtypeSize(graph.activationDtype()));
    std::map<std::string, int64_t> outputElements{
        {"input", ctx.batch * graph.inputShape().numel()}};
    std::map<std::string, const LayerRow*> byName;
    for (const LayerRow& row : layers) {
        outputElements[row.name] = row.output.numel();
        byName[row.name] = &row;
    }

    // Span totals per (pass, name), in the order they first ran.
    std::vector<std::pair<SpanKind, std::string>> order;
    std::map<std::pair<SpanKind, std::string>, double> totalMs;
    for (const TimelineSpan& s : spans) {
        const auto key = std::make_pair(s.kind, s.name);
        if (totalMs.emplace(key, 0.0).second)
            order.push_back(key);
        totalMs[key] += s.durationMs;
    }
    // Layers first (forward, then backward), phases last.
    std::stable_partition(order.begin(), order.end(),
                          [](const auto& k) { return k.first != SpanKind::Phase; });
    std::stable_partition(order.begin(), order.end(),
                          [](const auto& k) { return k.first == SpanKind::Forward; });
    double accounted = report.dataWaitMs;
    for (const auto& key : order) {
        LayerProfile p;
        p.name = key.second;
        p.pass = toString(key.first);
        p.ms = totalMs[key] / steps;
        if (const auto it = byName.find(p.name);
            key.first != SpanKind::Phase && it != byName.end()) {
            const LayerRow& row = *it->second;
            p.type = row.type;
            int64_t inputs = 0;
            for (const std::string& in : row.inputs)
                inputs += outputElements[in];
            const bool onBatch = row.inputs.size() == 1 && row.inputs[0] == "input";
            const LayerWork w = key.first == SpanKind::Forward
                                    ? forwardWork(row, inputs, actBytes)
                                    : backwardWork(row, inputs, actBytes, onBatch);
            p.flops = w.flops;
            p.bytes = w.bytes;
        } else {
            p.type = "phase";
            if (const auto group = ctx.optimizerParams.find(p.name);
                group != ctx.optimizerParams.end()) {
                const LayerWork w = optimizerWork(group->second, ctx.optimizer, ctx.momentum);
                p.flops = w.flops;
                p.bytes = w.bytes;
            } else if (p.name == "zero-grad") { // every trainable gradient written
                p.bytes = sizeOf(graph.trainableParameterCount(), 4);
            }
        }
        placeUnderRoofline(p, report.roofline);
        accounted += p.ms;
        report.rows.push_back(std::move(p));
    }
    report.otherMs = report.stepMs - accounted;

    // The trace: the loader's wait drawn just before the compute of the step it held up.
    const double shift = ctx.dataWaitMs.empty() ? 0.0 : ctx.dataWaitMs.front();
    std::map<int, double> stepStart;
    for (const TimelineSpan& s : spans)
        if (!stepStart.count(s.step))
            stepStart[s.step] = s.startMs;
    for (const auto& [step, start] : stepStart)
        if (step < static_cast<int>(ctx.dataWaitMs.size()) && ctx.dataWaitMs[step] > 0.0)
            report.spans.push_back({"data wait", "data", step, start - ctx.dataWaitMs[step] + shift,
                                    ctx.dataWaitMs[step]});
    for (const TimelineSpan& s : spans)
        report.spans.push_back({s.name, toString(s.kind), s.step, s.startMs + shift, s.durationMs});
    return report;
}

std::vector<std::string> profileAdvice(const ProfileReport& r) {
    std::vector<std::string> advice;
    if (r.stepMs <= 0.0)
        return advice;
    struct Share {
        double ms = 0.0, roofMs = 0.0; // time taken, and what the roofline allows of it
    };
    std::map<Bound, Share> shares;
    for (const LayerProfile& row : r.rows) {
        shares[row.bound].ms += row.ms;
        shares[row.bound].roofMs += row.ms * row.roofFraction;
    }
    const auto percent = [&](double ms) { return formatString("%.0f%%", 100.0 * ms / r.stepMs); };
    const auto ofRoof = [&](const Share& s) {
        return formatString("%.0f%%", 100.0 * s.roofMs / std::max(s.ms, 1e-12));
    };
    if (const Share& s = shares[Bound::Compute]; s.ms > 0.0)
        advice.push_back(
            "compute-bound layers take " + percent(s.ms) + " of the step at " + ofRoof(s) +
            " of the compute roof: only more arithmetic per second or fewer multiplications "
            "help them, precision=bf16-mixed where the device computes bf16 natively ("
            "trainbench-cli experiment precision), Winograd's 3x3 convolutions on a CPU "
            "(conv_algorithm=auto; trainbench-cli experiment conv_algorithm), or a faster "
            "device");
    // Roof fractions are of the direct algorithm's FLOPs: a compute-bound convolution well
    // above its roof (a direct one reaches about 105% of the sgemm the roof is measured with)
    // did fewer multiplications than that.
    double fastestConv = 0.0;
    for (const LayerProfile& row : r.rows)
        if (row.type == "conv2d" && row.bound == Bound::Compute)
            fastestConv = std::max(fastestConv, row.roofFraction);
    if (fastestConv > kFewerMultiplicationsRoofFraction)
        advice.push_back("convolutions reaching " + formatString("%.0f%%", 100.0 * fastestConv) +
                         " of the compute roof ran " +
                         (r.device == "cpu" ? "Winograd's algorithm (conv_algorithm=auto)"
                                            : "a Winograd or FFT algorithm of cuDNN's choice") +
                         ", which multiplies fewer times than the direct FLOPs counted here");
    if (const Share& s = shares[Bound::Memory]; s.ms > 0.0)
        advice.push_back(
            "memory-bound layers take " + percent(s.ms) + " of the step at " + ofRoof(s) +
            " of the memory roof: fewer bytes help them, 16-bit activations (bf16-mixed or "
            "16-mixed halve what they move) and memory_format=channels_last (no layout "
            "conversions between layers; trainbench-cli experiment precision)");
    if (const Share& s = shares[Bound::Overhead]; s.ms > 0.0)
        advice.push_back(
            "overhead-bound layers take " + percent(s.ms) + " of the step, under " +
            formatString("%.0f%%", 100.0 * kOverheadRoofFraction) +
            " of what either roof allows: their tensors are too small to keep the device busy, "
            "so a larger batch_size spreads the fixed cost of each call (trainbench-cli "
            "experiment batch_size; on a GPU, CUDA graphs would remove launch costs, not built "
            "yet)");
    if (r.dataWaitMs > 0.1 * r.stepMs)
        advice.push_back("the loader keeps the step waiting " + percent(r.dataWaitMs) +
                         " of the time: more num_workers (trainbench-cli experiment num_workers)");
    return advice;
}

std::string formatProfileTable(const ProfileReport& r) {
    std::ostringstream out;
    const double step = r.stepMs > 0 ? r.stepMs : 1.0;
    out << r.model << " on " << r.device << ", precision " << r.precision << ", batch " << r.batch
        << ": " << r.steps << " step(s) after step " << r.firstStep << ", "
        << formatString("%.2f", r.stepMs) << " ms a step\n";
    if (r.roofline.known())
        out << "roofs: " << formatString("%.1f", r.roofline.peakGflops) << " GFLOP/s ("
            << r.roofline.peakSource << "), " << formatString("%.1f", r.roofline.bandwidthGBs)
            << " GB/s (" << r.roofline.bandwidthSource << "); ridge "
            << formatString("%.1f", r.roofline.ridge()) << " FLOP/byte\n";
    else
        out << "roofs: " << r.roofline.peakSource << "\n";
    out << "\n";
    char line[256];
    std::snprintf(line, sizeof line, "%-24s %-9s %-13s %9s %6s %9s %8s %8s %7s  %s\n", "layer",
                  "pass", "type", "ms", "%step", "GFLOP/s", "GB/s", "FLOP/B", "roof%", "bound");
    out << line;
    const auto printRow = [&](const std::string& name, const std::string& pass,
                              const std::string& type, double ms, const LayerProfile* p) {
        if (p && p->bound != Bound::Unknown)
            std::snprintf(line, sizeof line,
                          "%-24.24s %-9s %-13.13s %9.3f %5.1f%% %9.2f %8.2f %8.2f %6.1f%%  %s\n",
                          name.c_str(), pass.c_str(), type.c_str(), ms, 100.0 * ms / step,
                          p->gflops, p->gbs, p->intensity, 100.0 * p->roofFraction,
                          toString(p->bound).c_str());
        else
            std::snprintf(line, sizeof line, "%-24.24s %-9s %-13.13s %9.3f %5.1f%%\n", name.c_str(),
                          pass.c_str(), type.c_str(), ms, 100.0 * ms / step);
        out << line;
    };
    if (r.dataWaitMs > 0.0)
        printRow("data wait", "data", "loader", r.dataWaitMs, nullptr);
    for (const LayerProfile& p : r.rows)
        printRow(p.name, p.pass, p.type, p.ms, &p);
    printRow("other", "", "", r.otherMs, nullptr);
    if (!r.roofline.known())
        return out.str();
    std::vector<const LayerProfile*> longest;
    for (const LayerProfile& p : r.rows)
        longest.push_back(&p);
    std::sort(longest.begin(), longest.end(),
              [](const LayerProfile* a, const LayerProfile* b) { return a->ms > b->ms; });
    out << "\nlongest:";
    for (std::size_t i = 0; i < std::min<std::size_t>(5, longest.size()); ++i)
        out << (i ? ", " : " ") << longest[i]->name << " " << longest[i]->pass << " "
            << formatString("%.1f%%", 100.0 * longest[i]->ms / step);
    out << "\n";
    for (const std::string& advice : profileAdvice(r))
        out << "- " << advice << "\n";
    return out.str();
}

} // namespace tb

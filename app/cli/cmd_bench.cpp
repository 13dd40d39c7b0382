// trainbench-cli bench: median step time, samples/s and peak memory of a zoo model on
// synthetic batches; --compare-cpu adds the CPU figure and the GPU-vs-CPU ratio.
#include "args.h"
#include "commands.h"

#include "backend/devices.h"
#include "core/errors.h"
#include "telemetry/telemetrysampler.h"
#include "train/runconfig.h"
#include "train/stepbench.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>

namespace tb::cli {

namespace {

nlohmann::json toJson(const StepBenchResult& r) {
    nlohmann::json j = {
        {"device", r.device},
        {"backend", r.backend},
        {"median_step_ms", r.medianStepMs},
        {"p90_step_ms", r.p90StepMs},
        {"max_step_ms", r.maxStepMs},
        {"samples_per_s", r.samplesPerSec},
        {"host_step_ms", r.hostStepMs},
        {"peak_rss_mb", r.peakRssMb},
        {"peak_device_mb", r.peakDeviceMb},
        // Forward FLOPs times 3 (forward, backward data, backward weights), whole batch.
        {"step_gflop", r.stepGflop},
        {"achieved_gflops", r.achievedGflops}};
    if (r.cpuPeakGflops > 0.0) {
        j["cpu_peak_gflops"] = r.cpuPeakGflops;
        j["cpu_peak_source"] = r.cpuPeakMeasured ? "measured" : "cached";
        j["cpu_peak_fraction"] = r.peakFraction;
        j["cpu_isa"] = r.cpuIsa;
        j["cpu_bf16"] = r.cpuBf16Native ? "native" : "emulated";
    }
    if (r.reordersPerStep) {
        j["reorders_per_step"] = *r.reordersPerStep;
        j["activation_reorders_per_step"] = r.activationReordersPerStep.value_or(0);
        j["conv_layouts"] = r.convolutionLayouts;
        j["conv_shapes"] = r.convolutionAlgorithms.shapes;
        j["winograd_conv_shapes"] = r.convolutionAlgorithms.winograd;
    }
    return j;
}

// Averages NVML utilisation of one GPU while the benchmark's back-to-back window runs ("keeps
// the GPU busy"); set-up, algorithm search and the one-step-at-a-time timing are left out.
class UtilisationMeter final : public EventSink {
public:
    explicit UtilisationMeter(int gpu) : m_gpu(gpu) {}
    void setActive(bool active) { m_active = active; }
    void onEvent(const Event& event) override {
        const auto* s = std::get_if<SystemSampleEvent>(&event);
        if (!s || !m_active)
            return;
        for (const GpuSample& g : s->sample.gpus)
            if (g.index == m_gpu && g.utilPercent) {
                std::lock_guard lock(m_mutex);
                m_sum += *g.utilPercent;
                ++m_count;
            }
    }
    std::optional<double> mean() const {
        std::lock_guard lock(m_mutex);
        return m_count ? std::optional<double>(m_sum / m_count) : std::nullopt;
    }

private:
    int m_gpu;
    std::atomic<bool> m_active{false};
    mutable std::mutex m_mutex;
    double m_sum = 0.0;
    int m_count = 0;
};

} // namespace

int cmdBench(const Argv& argv) {
    const Args args(argv, specOf("bench"));
    if (args.flag("help")) {
        std::puts("usage: trainbench-cli bench [--model mlp] [--input CxHxW] [--batch 128]\n"
                  "                            [--steps 30] [--warmup 5] [--threads 0]\n"
                  "                            [--device cpu|cuda:N|auto] [--precision 32]\n"
                  "                            [--memory-format auto|channels_last]\n"
                  "                            [--conv-algorithm auto|direct]\n"
                  "                            [--hidden 256,128] [--shortcut A|B]\n"
                  "                            [--n-layer 4] [--n-head 4] [--n-embd 128]\n"
                  "                            [--compare-cpu] [--json]\n\n"
                  "Times whole training steps on synthetic batches after warm-up: median, p90\n"
                  "and max step time, samples/s and peak memory. --input is one sample's shape,\n"
                  "3x224x224 or 3,224,224 (the model's own unless given).\n\n"
                  "step_gflop is the FLOPs of one step, estimated as the forward FLOPs times 3\n"
                  "(forward, backward data, backward weights); achieved_gflops its rate. On the\n"
                  "CPU, cpu_peak_gflops is the f32 peak oneDNN's sgemm reaches on these threads\n"
                  "(measured once, then cached in the data folder: cpu_peak_source says which)\n"
                  "and cpu_peak_fraction = achieved_gflops / cpu_peak_gflops; cpu_isa is oneDNN's\n"
                  "ISA and cpu_bf16 whether bf16-mixed computes in bf16 (native) or widens to\n"
                  "f32 (emulated); reorders_per_step counts oneDNN's layout conversions in a\n"
                  "step and activation_reorders_per_step those of activations (the rest are of\n"
                  "weights); conv_layouts names the layouts the convolutions keep activations\n"
                  "in (nChw16c, nChw8c, nhwc), which batch norm, ReLU, add and pooling work in\n"
                  "too; winograd_conv_shapes counts the convolution shapes computed by\n"
                  "Winograd's algorithm (--conv-algorithm auto, as a run's conv_algorithm) of\n"
                  "conv_shapes. Denormals are flushed as in a run (flush_denormals=true).");
        return 0;
    }
    StepBenchOptions o;
    o.model = args.valueOr("model", "mlp");
    o.input = args.valueOr("input", "");
    o.batch = args.intValue("batch", 1).value_or(128);
    o.steps = static_cast<int>(args.intValue("steps", 3).value_or(30));
    o.warmup = static_cast<int>(args.intValue("warmup", 0).value_or(5));
    // The same bound as the threads config key: this machine's hardware threads.
    const long long maxThreads = findConfigField("threads")->max.get<long long>();
    o.threads = static_cast<int>(args.intValue("threads", 0, maxThreads).value_or(0));
    o.device = args.valueOr("device", "cpu");
    o.precision = args.valueOr("precision", "32");
    (void)activationDtypeOf(o.precision, "--precision"); // refuse a bad value before any work
    o.memoryFormat = args.valueOr("memory-format", "auto");
    (void)memoryFormatOf(o.memoryFormat, "--memory-format");
    o.convAlgorithm = args.valueOr("conv-algorithm", "auto");
    (void)convAlgorithmOf(o.convAlgorithm, "--conv-algorithm");
    o.modelOptions = args.modelOptions();

    const Device device = resolveDevice(o.device);
    const bool gpu = device.isCuda();
    UtilisationMeter meter(device.index);
    TelemetrySampler sampler(
        TelemetryOptions{std::chrono::milliseconds(200), gpu, "libnvidia-ml.so.1"});
    if (gpu) {
        sampler.addSink(&meter);
        sampler.start();
        o.onSteadyState = [&meter](bool active) { meter.setActive(active); };
    }
    const StepBenchResult r = benchmarkSteps(o);
    sampler.stop();
    nlohmann::json out = toJson(r);
    out["model"] = o.model;
    out["batch"] = o.batch;
    out["steps"] = o.steps;
    out["precision"] = o.precision;
    if (r.steadySteps > 0) {
        out["steady_step_ms"] = r.steadyStepMs;
        out["steady_samples_per_s"] = r.steadySamplesPerSec;
        out["steady_steps"] = r.steadySteps;
        // The share of a step the host needs to issue it: under 100% the launch queue runs
        // ahead of the GPU; the smaller, the more room before the host becomes the bottleneck.
        out["host_overhead_percent"] = 100.0 * r.hostStepMs / r.steadyStepMs;
    }
    if (r.h2dCopyMs > 0.0) {
        out["h2d_copy_ms"] = r.h2dCopyMs;
        out["pipelined_step_ms"] = r.pipelinedStepMs;
        // What the double-buffered copy adds to a step, against what it costs on its own.
        const double exposed = std::max(0.0, r.pipelinedStepMs - r.steadyStepMs);
        out["h2d_exposed_ms"] = exposed;
        out["h2d_hidden_percent"] = 100.0 * (1.0 - std::min(1.0, exposed / r.h2dCopyMs));
    }
    if (const auto util = meter.mean())
        out["gpu_util_percent"] = *util;
    if (args.flag("compare-cpu") && r.device != "cpu") {
        StepBenchOptions cpu = o;
        cpu.device = "cpu";
        cpu.precision = "32";
        cpu.steps = std::max(3, o.steps / 5);
        const StepBenchResult c = benchmarkSteps(cpu);
        out["cpu"] = toJson(c);
        const double gpuRate = r.steadySteps > 0 ? r.steadySamplesPerSec : r.samplesPerSec;
        out["gpu_vs_cpu"] = gpuRate / c.samplesPerSec;
    }
    if (args.flag("json")) {
        std::printf("%s\n", out.dump().c_str());
        return 0;
    }
    std::printf("%s batch %lld on %s (%s)\n", o.model.c_str(), static_cast<long long>(o.batch),
                r.device.c_str(), r.backend.c_str());
    std::printf("  median step %.3f ms (p90 %.3f, max %.3f), %.0f samples/s, peak RSS %.0f MB\n",
                r.medianStepMs, r.p90StepMs, r.maxStepMs, r.samplesPerSec, r.peakRssMb);
    std::printf("  %.3f GFLOP per step (forward x 3), %.1f GFLOP/s achieved", r.stepGflop,
                r.achievedGflops);
    if (r.cpuPeakGflops > 0.0)
        std::printf(", %.0f%% of the measured f32 peak %.1f GFLOP/s (%s)", 100.0 * r.peakFraction,
                    r.cpuPeakGflops, r.cpuPeakMeasured ? "measured now" : "cached");
    if (r.reordersPerStep)
        std::printf(", %lld oneDNN reorders per step (%lld of activations; convolutions keep %s)",
                    static_cast<long long>(*r.reordersPerStep),
                    static_cast<long long>(r.activationReordersPerStep.value_or(0)),
                    r.convolutionLayouts.empty() ? "no layout" : r.convolutionLayouts.c_str());
    if (r.convolutionAlgorithms.shapes > 0)
        std::printf(", Winograd for %d of %d convolution shapes", r.convolutionAlgorithms.winograd,
                    r.convolutionAlgorithms.shapes);
    std::printf("\n");
    if (r.steadySteps > 0)
        std::printf("  back to back: %.3f ms per step over %d steps, %.0f samples/s; the host "
                    "issues a step in %.3f ms (%.1f%% of a step)\n",
                    r.steadyStepMs, r.steadySteps, r.steadySamplesPerSec, r.hostStepMs,
                    out["host_overhead_percent"].get<double>());
    if (out.contains("h2d_copy_ms"))
        std::printf("  input copy from pinned memory %.3f ms per batch; with it each step takes "
                    "%.3f ms (%.3f ms exposed, %.0f%% hidden under compute)\n",
                    r.h2dCopyMs, r.pipelinedStepMs, out["h2d_exposed_ms"].get<double>(),
                    out["h2d_hidden_percent"].get<double>());
    if (out.contains("gpu_util_percent"))
        std::printf("  GPU utilisation %.0f%% (NVML every 200 ms, back-to-back window)\n",
                    out["gpu_util_percent"].get<double>());
    if (out.contains("gpu_vs_cpu"))
        std::printf("  CPU: %.0f samples/s; GPU/CPU = %.1fx\n",
                    out["cpu"]["samples_per_s"].get<double>(), out["gpu_vs_cpu"].get<double>());
    return 0;
}

} // namespace tb::cli

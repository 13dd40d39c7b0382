// benchmarkSteps: synthetic batch on the device, warm-up, then timed steps that end in a
// synchronize so asynchronous backends are timed honestly, then (GPU) a back-to-back window.
#include "train/stepbench.h"

#include "backend/cpu/cpubackend.h"
#include "backend/cpu/cpuisa.h"
#include "backend/cpu/cpupeak.h"
#include "backend/devices.h"
#include "backend/kernels/random_math.h"
#include "core/datadirectory.h"
#include "core/processmemory.h"
#include "data/dataset.h"
#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "optim/gradscaler.h"
#include "optim/optimizer.h"
#include "telemetry/hostinfo.h"
#include "train/detectionobjective.h"
#include "train/devicebatchslots.h"
#include "train/lossrows.h"
#include "train/memoryestimate.h"
#include "train/runconfig.h"
#include "train/segmentationvalidation.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <vector>

namespace tb {

namespace {

// Forward FLOPs of the graph at `batch` times 3: backward computes the data gradient and the
// weight gradient, each about as costly as the forward pass.
double trainingStepFlops(const Graph& graph, int64_t batch) {
    double forward = 0.0;
    for (const LayerRow& row : graph.summary(batch))
        forward += static_cast<double>(row.flops);
    return 3.0 * forward;
}

// The input copy alone, then steps that each stage a new batch through DeviceBatchSlots as the
// trainer does, both back to back: fills h2dCopyMs and pipelinedStepMs.
void measureInputCopy(Backend& backend, const Tensor& hostX, const Tensor& hostY, Tensor& x,
                      Tensor& y, int chunk, StepBenchResult& r,
                      const std::function<void(const Tensor&, const Tensor&)>& step) {
    Tensor pinnedX = backend.emptyHost(hostX.shape(), hostX.dtype(), true);
    Tensor pinnedY = backend.emptyHost(hostY.shape(), hostY.dtype(), true);
    if (!pinnedX.pinned() || !pinnedY.pinned())
        return; // the system would not pin more memory
    std::memcpy(pinnedX.raw(), hostX.raw(), hostX.bytes());
    std::memcpy(pinnedY.raw(), hostY.raw(), hostY.bytes());
    using Clock = std::chrono::steady_clock;
    const auto timePerBatch = [&](const std::function<void()>& one) {
        one(); // warm: plans, slot buffers
        backend.synchronize();
        const auto t0 = Clock::now();
        for (int i = 0; i < chunk; ++i)
            one();
        backend.synchronize();
        return std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / chunk;
    };
    r.h2dCopyMs = timePerBatch([&] {
        backend.copy(pinnedX, x);
        backend.copy(pinnedY, y);
    });
    DeviceBatchSlots batches(backend);
    r.pipelinedStepMs = timePerBatch([&] {
        const auto [bx, by] = batches.stage(pinnedX, pinnedY);
        step(bx, by);
        batches.consumed();
    });
}

} // namespace

void trainingStep(Graph& graph, Optimizer& optimizer, GradScaler* scaler, const Tensor& x,
                  const Tensor& labels, Tensor& lossSum, float lr, DetectionObjective* detection) {
    Backend& backend = graph.backend();
    const Tensor& logits = graph.forward(x, true);
    Tensor& dlogits = graph.logitsGrad();
    if (detection) {
        detection->loss(backend, logits, labels, &dlogits, scaler ? scaler->scale() : 1.0);
    } else if (graph.pixelLogits()) {
        backend.pixelCrossEntropy(logits, labels, kIgnoreIndex, labels.numel(), lossSum, &dlogits,
                                  scaler ? &scaler->state() : nullptr, 1.0f);
        // torchvision's aux_classifier: its loss and gradient too, as a training step has them.
        for (std::size_t i = 0; i < graph.auxiliaryOutputs().size(); ++i)
            backend.pixelCrossEntropy(
                graph.auxiliaryLogits(i), labels, kIgnoreIndex, labels.numel(), lossSum,
                graph.auxiliaryTrains(i) ? &graph.auxiliaryGrad(i) : nullptr,
                scaler ? &scaler->state() : nullptr, 1.0f / graph.auxiliaryOutputs()[i].weight);
    } else {
        Tensor dlogitRows = logitRows(dlogits);
        backend.softmaxCrossEntropy(logitRows(logits), labelRows(labels), 0.0f, lossSum,
                                    &dlogitRows, scaler ? &scaler->state() : nullptr, 1.0f);
    }
    graph.backward(dlogits, graph.pixelLogits());
    if (scaler)
        scaler->checkGradients(graph.params());
    optimizer.step(lr, scaler ? &scaler->state() : nullptr, scaler ? &scaler->foundInf() : nullptr);
    if (scaler)
        scaler->update();
    graph.zeroGrad();
}

Tensor syntheticBoxRows(int64_t batch, int64_t side, int classes, uint64_t seed) {
    constexpr int64_t kBoxes = 4;
    Tensor rows = Tensor::host({batch, kBoxes, kBoxColumns}, DType::F32);
    float* r = rows.data<float>();
    for (int64_t i = 0; i < batch * kBoxes; ++i, r += kBoxColumns) {
        auto draw = [&](uint64_t k) {
            return math::uniform01(seed, static_cast<uint64_t>(i) * 8 + k);
        };
        const float w = static_cast<float>(side) * (0.05f + 0.4f * draw(0));
        const float h = static_cast<float>(side) * (0.05f + 0.4f * draw(1));
        const float x = (static_cast<float>(side) - w) * draw(2);
        const float y = (static_cast<float>(side) - h) * draw(3);
        r[0] =
            static_cast<float>(static_cast<int>(draw(4) * static_cast<float>(classes)) % classes);
        r[1] = x;
        r[2] = y;
        r[3] = x + w;
        r[4] = y + h;
        r[5] = 0.0f;
    }
    return rows;
}

StepBenchResult benchmarkSteps(const StepBenchOptions& o) {
    const Device device = resolveDevice(o.device);
    auto backend = createBackend(device, o.threads);
    backend->setFlushDenormals(o.flushDenormals);
    backend->setMemoryFormat(memoryFormatOf(o.memoryFormat, "--memory-format"));
    backend->setConvAlgorithm(convAlgorithmOf(o.convAlgorithm, "--conv-algorithm"));
    Shape sample = zooInputShape(o.model, {1, 28, 28});
    if (!o.input.empty())
        sample = Shape::parse(o.input, "input");
    // A language model (a sample of token ids) predicts one of a character vocabulary's 65
    // tokens (nanoGPT's Shakespeare) at every position; a classifier one of 10 classes.
    const bool tokens = sample.rank() == 1 && o.model == "gpt";
    const int classes = tokens ? 65 : 10;
    const DType act = activationDtypeOf(o.precision, "--precision");
    const nlohmann::json spec = modelSpec(o.model, sample, classes, o.modelOptions);
    requireMemoryFits(estimateTrainingMemory(spec, act, o.batch, OptimizerConfig{}), o.batch,
                      *backend); // before allocating: a model too large fails with its estimate
    Graph graph(spec, *backend, act, 0);
    Optimizer optimizer(*backend, graph.params(), OptimizerConfig{});
    std::unique_ptr<GradScaler> scaler;
    if (o.precision == "16-mixed")
        scaler = std::make_unique<GradScaler>(*backend, GradScalerConfig{});

    Tensor hostX = Tensor::host(sample.withBatch(o.batch), DType::F32);
    // A class per token of a window, per pixel of a segmentation, or per sample.
    const Shape targetShape = tokens                ? Shape{o.batch, sample[0]}
                              : graph.pixelLogits() ? Shape{o.batch, graph.positions()}
                                                    : Shape{o.batch};
    Tensor hostY = Tensor::host(targetShape, DType::I32);
    const auto tokenId = [&](uint64_t seed, int64_t i) {
        return static_cast<int32_t>(math::mix64(seed, static_cast<uint64_t>(i)) % classes);
    };
    for (int64_t i = 0; i < hostX.numel(); ++i)
        hostX.data<float>()[i] = tokens
                                     ? static_cast<float>(tokenId(1, i))
                                     : 2.0f * math::uniform01(1, static_cast<uint64_t>(i)) - 1.0f;
    for (int64_t i = 0; i < hostY.numel(); ++i)
        hostY.data<int32_t>()[i] = tokens ? tokenId(2, i) : static_cast<int32_t>(i % classes);
    Tensor x = backend->empty(hostX.shape(), DType::F32);
    Tensor y = backend->empty(hostY.shape(), DType::I32);
    backend->copy(hostX, x);
    backend->copy(hostY, y);
    Tensor loss = backend->empty({2}, DType::F32);
    // A detector learns boxes: four an image, its loss on the host as the trainer computes it.
    std::unique_ptr<DetectionObjective> detection;
    Tensor boxes;
    if (graph.detectHead()) {
        detection = std::make_unique<DetectionObjective>(*graph.detectHead(), sample[1]);
        boxes = syntheticBoxRows(o.batch, sample[1], classes, 3);
    }
    const Tensor& targets = detection ? boxes : y;

    const auto step = [&] {
        trainingStep(graph, optimizer, scaler.get(), x, targets, loss, 0.01f, detection.get());
    };
    graph.zeroGrad(); // gradients accumulate: start from zero, not from uninitialised memory
    using Clock = std::chrono::steady_clock;
    const auto msSince = [](Clock::time_point t0) {
        return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    };

    // One step at a time, each ending in a synchronize: step time, host issue time and (CPU)
    // the reorders it ran.
    auto* cpu = dynamic_cast<CpuBackend*>(backend.get());
    std::vector<double> times, hostTimes;
    std::vector<std::pair<int64_t, int64_t>> reorders; // (all, of activations) per step
    for (int i = 0; i < o.warmup + o.steps; ++i) {
        if (i == o.warmup)
            backend->resetPeakMemory();
        if (cpu)
            cpu->resetReorderCounts();
        const auto t0 = Clock::now();
        step();
        const double hostMs = msSince(t0);
        backend->synchronize();
        if (i >= o.warmup) {
            times.push_back(msSince(t0));
            hostTimes.push_back(hostMs);
            if (cpu)
                reorders.emplace_back(cpu->reorderCounts().total(),
                                      cpu->reorderCounts().activations);
        }
    }
    std::sort(times.begin(), times.end());
    std::sort(hostTimes.begin(), hostTimes.end());
    std::sort(reorders.begin(), reorders.end());
    StepBenchResult r;
    r.device = device.toString();
    r.backend = backend->description();
    r.medianStepMs = times[times.size() / 2];
    r.p90StepMs = times[times.size() * 9 / 10];
    r.maxStepMs = times.back();
    r.samplesPerSec = static_cast<double>(o.batch) / r.medianStepMs * 1000.0;
    r.hostStepMs = hostTimes[hostTimes.size() / 2];
    if (cpu) {
        r.reordersPerStep = reorders[reorders.size() / 2].first;
        r.activationReordersPerStep = reorders[reorders.size() / 2].second;
        r.convolutionLayouts = cpu->convolutionLayouts();
        r.convolutionAlgorithms = cpu->convolutionAlgorithms();
    }

    // Back to back, one synchronize at the end: what a training run sees once the queue is full.
    if (device.isCuda() && o.steadySeconds > 0.0) {
        if (o.onSteadyState)
            o.onSteadyState(true);
        const auto t0 = Clock::now();
        const int chunk = std::max(1, o.steps);
        do {
            for (int i = 0; i < chunk; ++i)
                step();
            r.steadySteps += chunk;
            backend->synchronize();
        } while (msSince(t0) < o.steadySeconds * 1000.0);
        r.steadyStepMs = msSince(t0) / r.steadySteps;
        r.steadySamplesPerSec = static_cast<double>(o.batch) / r.steadyStepMs * 1000.0;
        if (o.onSteadyState)
            o.onSteadyState(false);
        if (backend->supportsPinnedMemory())
            measureInputCopy(*backend, hostX, hostY, x, y, chunk, r,
                             [&](const Tensor& bx, const Tensor& by) {
                                 trainingStep(graph, optimizer, scaler.get(), bx, by, loss);
                             });
    }
    r.stepGflop = trainingStepFlops(graph, o.batch) / 1e9;
    r.achievedGflops = r.stepGflop / ((r.steadySteps > 0 ? r.steadyStepMs : r.medianStepMs) / 1e3);
    // After the timing, so measuring the peak cannot disturb it.
    if (cpu) {
        // An f32 step faster than the cached f32 peak proves that peak low; bf16 may rightly
        // beat it (twice the f32 rate where the CPU has bf16 arithmetic).
        const double f32Achieved = o.precision == "32" ? r.achievedGflops : 0.0;
        const CpuPeak peak = cachedCpuPeak(cpu->threads(), readHostFacts().cpu.model,
                                           dataDirectory() + "/cpu-peak.json", f32Achieved);
        r.cpuPeakGflops = peak.gflops;
        r.cpuPeakMeasured = peak.measured;
        r.peakFraction = r.achievedGflops / peak.gflops;
        const CpuLowPrecisionSupport isa = cpuLowPrecisionSupport();
        r.cpuIsa = isa.isa;
        r.cpuBf16Native = isa.bf16Native;
    }
    r.peakRssMb = static_cast<double>(processPeakRssBytes().value_or(0)) / (1024.0 * 1024.0);
    r.peakDeviceMb = static_cast<double>(backend->memoryStats().peakInUse) / (1024.0 * 1024.0);
    return r;
}

} // namespace tb

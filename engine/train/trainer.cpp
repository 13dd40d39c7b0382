// Trainer: setup, the step loop with accumulation and loss scaling, evaluation, events.
#include "train/trainer.h"

#include "backend/cpu/cpuisa.h"
#include "backend/devices.h"
#include "core/errors.h"
#include "core/floatenv.h"
#include "core/processmemory.h"
#include "core/runid.h"
#include "core/textformat.h"
#include "data/dataloader.h"
#include "data/datasets.h"
#include "data/detectiondataset.h"
#include "data/textdataset.h"
#include "dist/dataparallel.h"
#include "dist/mpicommunicator.h"
#include "nn/finetune.h"
#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "nn/yolozoo.h"
#include "train/advisor.h"
#include "train/checkpointer.h"
#include "train/detectionobjective.h"
#include "train/detectionvalidation.h"
#include "train/devicebatchslots.h"
#include "train/lossrows.h"
#include "train/memoryestimate.h"
#include "train/pretrained.h"
#include "train/pretrainedinput.h"
#include "train/runfailure.h"
#include "train/segmentationvalidation.h"
#include "train/stepplan.h"
#include "train/stepprofiler.h"
#include "train/textgenerator.h"
#include "train/validation.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>

namespace tb {

namespace {

double nowUnix() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// One logging interval: counts, and the step-time breakdown summed from stream events. Events of
// work the device has finished are folded into the sums as the interval goes (a non-blocking
// query), so even a long interval holds only the events still in flight.
struct Interval {
    struct MicroBatchEvents {
        std::unique_ptr<StreamEvent> start, copied, forwarded, backwarded;
    };
    struct StepEvents {
        std::unique_ptr<StreamEvent> start, end;
    };
    int64_t microBatches = 0, steps = 0;
    double h2dMs = 0.0, forwardMs = 0.0, backwardMs = 0.0, optimizerMs = 0.0;
    double waitMs = 0.0, samples = 0.0; // samples: of every rank in a data-parallel run
    double predictions = 0.0; // what accuracy counts: samples, or their positions for text
    double allReduceMs = 0.0; // what backward did not hide of it
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

    void add(MicroBatchEvents ev) {
        m_pendingMicro.push_back(std::move(ev));
        ++microBatches;
        fold(false);
    }
    void add(StepEvents ev) {
        m_pendingSteps.push_back(std::move(ev));
        ++steps;
        fold(false);
    }
    void add(ExposedTime exposed) {
        allReduceMs += exposed.hostMs;
        if (exposed.waitStart)
            m_pendingWaits.push_back(std::move(exposed));
    }
    // Sums the timings of finished work; with `all`, of everything (the caller has waited for
    // the device). Events on one stream complete in order, so the front decides.
    void fold(bool all) {
        for (; !m_pendingMicro.empty(); m_pendingMicro.pop_front()) {
            MicroBatchEvents& m = m_pendingMicro.front();
            if (!all && !m.backwarded->completed())
                break;
            h2dMs += m.copied->elapsedMs(*m.start);
            forwardMs += m.forwarded->elapsedMs(*m.copied);
            backwardMs += m.backwarded->elapsedMs(*m.forwarded);
        }
        for (; !m_pendingSteps.empty(); m_pendingSteps.pop_front()) {
            StepEvents& o = m_pendingSteps.front();
            if (!all && !o.end->completed())
                break;
            optimizerMs += o.end->elapsedMs(*o.start);
        }
        for (; !m_pendingWaits.empty(); m_pendingWaits.pop_front()) {
            ExposedTime& w = m_pendingWaits.front();
            if (!all && !w.waitEnd->completed())
                break;
            allReduceMs += w.waitEnd->elapsedMs(*w.waitStart);
        }
    }
    void reset() { *this = Interval(); }

private:
    std::deque<MicroBatchEvents> m_pendingMicro;
    std::deque<StepEvents> m_pendingSteps;
    std::deque<ExposedTime> m_pendingWaits; // on the GPU, the compute stream's wait for NCCL
};

// What to change when the loss diverges, for NonFiniteLossError.
std::string divergenceAdvice(float lr, const std::string& precision) {
    char now[32];
    std::snprintf(now, sizeof now, "%g", static_cast<double>(lr));
    const std::string lower = std::string("Lower lr (now ") + now +
                              ") or add warmup_steps, and check the data for bad values";
    if (precision == "16-mixed")
        return "The GradScaler skipped steps until its scale fell below 1 and the loss is still "
               "not finite, so this is not an overflow that loss scaling fixes. " +
               lower + "; gradient clipping also tames exploding gradients.";
    return lower + "; gradient clipping also tames exploding gradients, and with "
                   "precision=16-mixed loss scaling skips the steps whose gradients overflow.";
}

// What the run does with denormal floats, for the log (core/floatenv.h).
std::string denormalNote(bool flush, const Device& device) {
    if (!denormalControlAvailable())
        return "denormal floats are kept: this CPU has no flush-to-zero control TrainBench can "
               "set, so flush_denormals has no effect";
    const std::string gpu = device.isCuda() ? "; the GPU's kernels keep them at full speed" : "";
    if (flush)
        return "denormal floats (below 1.2e-38) are flushed to zero on the trainer thread, the "
               "compute threads and the loader workers (flush_denormals=true), so arithmetic "
               "on tiny weights and momenta stays at full speed" +
               gpu;
    return "flush_denormals=false: denormal floats are kept on the CPU threads; late in a run "
           "each operation on one can cost a CPU core a hundred cycles, and the step-time chart "
           "shows the part that slows" +
           gpu;
}

// A training split that yields no batch would run epochs of nothing, forever under max_steps,
// and call an untrained model `completed`.
// What a language model writes after each epoch, in tokens.
constexpr int kEpochSampleTokens = 200;

void requireTrainingStep(const RunConfig& config, const Dataset& train, const Dataset& validation) {
    if (train.size() >= (config.dropLast ? config.batchSize : 1))
        return;
    const std::string split = "the training split (" + train.description() + ") holds ";
    if (train.size() > 0)
        throw ConfigError("drop_last", split + std::to_string(train.size()) +
                                           " samples, fewer than batch_size " +
                                           std::to_string(config.batchSize) +
                                           ", and drop_last drops that one short batch: no "
                                           "training step can run; lower batch_size or set "
                                           "drop_last=false");
    throw ConfigError(config.data.valFraction > 0 ? "data.val_fraction" : "data.root",
                      split + "no samples (the validation split holds " +
                          std::to_string(validation.size()) +
                          "): no training step can run; lower data.val_fraction or add data");
}

} // namespace

struct Trainer::State {
    RunConfig config;
    EventSink& sink;
    TrainerOptions options;
    std::unique_ptr<Backend> backend;
    std::unique_ptr<Graph> graph;
    std::unique_ptr<Optimizer> optimizer;
    std::unique_ptr<LrSchedule> schedule;
    std::unique_ptr<GradScaler> scaler;
    std::unique_ptr<DataLoader> trainLoader, valLoader;
    std::unique_ptr<Checkpointer> checkpointer;
    std::unique_ptr<Advisor> advisor;
    std::unique_ptr<TextGenerator> sampler; // a language model's: its text after each epoch
    // A detector's loss and validation, and its training set (close_mosaic turns its mosaic off).
    std::unique_ptr<DetectionObjective> detection;
    const DetectionDataset* detectionTrain = nullptr;
    bool segmentation = false; // a class for every pixel: the per-pixel loss and mIoU
    Tensor detectionLoss, detectionLossDevice; // a micro-batch's loss, added to lossSum
    detect::DetectionLossTerms intervalTerms;  // its terms summed over the logging interval
    std::unique_ptr<DataParallel> dp;          // distributed=mpi
    bool jobStopRequested = false;             // a rank of the job was asked to stop (stopping())
    Tensor lossSum, lossHost, deviceInputs, deviceLabels; // the latter two: validation's
    // Each auxiliary output's [loss, correct] sums this interval (torchvision's aux_classifier):
    // logged as a loss term of its own ("aux"), so that the training loss stays the scores' and
    // compares with the validation loss.
    std::vector<Tensor> auxiliaryLossSums;
    Tensor auxiliaryHost;
    std::unique_ptr<DeviceBatchSlots> batchSlots; // training batches, double-buffered
    Tensor skippedSteps; // device count of steps the GradScaler skipped in this interval
    // gradient_clip_val: the gradients clipped, and [largest norm, steps clipped] this interval.
    std::vector<Tensor*> clippedGradients;
    Tensor clipStats;
    Position pos;
    int64_t stepsPerEpoch = 0, totalSteps = 0;
    RunSummary summary;
    double samplesPerSecSum = 0.0;
    int64_t samplesPerSecCount = 0;
    MemoryEstimate memory; // of the configured batch, for the log and an out-of-memory error
    // This epoch's correct predictions and samples, from the interval read-backs (no extra sync).
    double trainCorrect = 0.0, trainPredictions = 0.0;
    // This epoch's summed micro-batch losses and their count: the epoch's mean training loss.
    double trainLossSum = 0.0, trainLossBatches = 0.0;
    // pause() / resume() from another thread; the loop waits between optimizer steps.
    std::atomic<bool> pauseRequested{false};
    std::mutex pauseMutex;
    std::condition_variable_any pauseChanged;
    StepProfiler profiler; // requestProfile() from another thread

    State(RunConfig c, EventSink& s, TrainerOptions o)
        : config(std::move(c)), sink(s), options(std::move(o)) {}

    // Lines logged before the run is announced (while it sets up) wait for the announcement,
    // so the store, which records a run's events from its start on, keeps them too.
    std::vector<LogEvent> setupLog;
    bool announced = false;
    void log(LogLevel level, const std::string& message) {
        LogEvent line{level, message, nowUnix()};
        if (announced)
            sink.onEvent(line);
        else
            setupLog.push_back(std::move(line));
    }
    void announce(const RunStartedEvent& started) {
        sink.onEvent(started);
        announced = true;
        for (const LogEvent& line : setupLog)
            sink.onEvent(line);
        setupLog.clear();
    }
    void setup();
    void continueOnAnotherJobShape();
    bool trainEpoch(std::stop_token& stop);
    void logInterval(Interval& interval, float lr, const std::stop_token& stop);
    // A detector's micro-batch: YOLOv8's loss on the host (DetectionObjective), its gradient
    // scaled as the cross-entropy's is (1/k, the loss scale), its mean added to lossSum[0].
    void addDetectionLoss(const Tensor& head, const Tensor& boxRows, Tensor& dhead, int k) {
        const double scale = (scaler ? scaler->scale() : 1.0) / k;
        const detect::DetectionLossTerms terms =
            detection->loss(*backend, head, boxRows, &dhead, scale);
        intervalTerms.box += terms.box;
        intervalTerms.cls += terms.cls;
        intervalTerms.dfl += terms.dfl;
        detectionLoss.data<float>()[0] = static_cast<float>(terms.total());
        detectionLoss.data<float>()[1] = 0.0f;
        if (backend->device() == Device::cpu()) {
            backend->add(lossSum, detectionLoss, lossSum);
            return;
        }
        if (!detectionLossDevice.defined())
            detectionLossDevice = backend->empty({2}, DType::F32);
        backend->copy(detectionLoss, detectionLossDevice);
        backend->add(lossSum, detectionLossDevice, lossSum);
    }
    // A segmentation model's auxiliary heads: each one's per-pixel loss, its gradient weighted
    // (divided by k / weight) into the head's buffer for the backward pass.
    void addAuxiliaryLosses(const Tensor& labels, int64_t counted, int k) {
        const auto& outputs = graph->auxiliaryOutputs();
        for (std::size_t i = 0; i < auxiliaryLossSums.size(); ++i)
            // A frozen branch (finetune.freeze reaching past it) is scored but learns nothing.
            backend->pixelCrossEntropy(
                graph->auxiliaryLogits(i), labels, kIgnoreIndex, counted, auxiliaryLossSums[i],
                graph->auxiliaryTrains(i) ? &graph->auxiliaryGrad(i) : nullptr,
                scaler ? &scaler->state() : nullptr, static_cast<float>(k) / outputs[i].weight);
    }
    void waitWhilePaused(Interval& interval, float lr, std::stop_token& stop);
    // After an optimizer step (or early, at the end of an epoch): a finished profile reported.
    void profileStepDone(bool early);
    bool evaluate(EpochEvent& epoch, std::stop_token& stop) {
        // Each rank of a job validates alone; one that stopped early would leave the others
        // waiting in the next epoch's collectives, so a job's validation runs to its end.
        std::stop_token whole;
        if (detection)
            return validateDetection(*backend, *graph, *valLoader, *detection, deviceInputs, epoch,
                                     dp ? whole : stop);
        if (segmentation)
            return validateSegmentation(*backend, *graph, *valLoader, deviceInputs, deviceLabels,
                                        epoch, dp ? whole : stop);
        return validate(*backend, *graph, *valLoader, config.batchSize, deviceInputs, deviceLabels,
                        epoch, dp ? whole : stop);
    }
    bool isRankZero() const { return !dp || dp->rank() == 0; }
    ConfigError segmenterOnClasses() const {
        return ConfigError("model", config.model +
                                        " is a segmentation model: it trains on a segmentation "
                                        "set (shapes-seg, voc, masks), not on " +
                                        config.data.name);
    }
    ConfigError detectorOnClasses() const {
        return ConfigError("model", config.model +
                                        " is a detector: it trains on a detection set "
                                        "(shapes-detect, yolo, coco), not on " +
                                        config.data.name);
    }
    // Whether the run stops after this step. A data-parallel job's ranks must stop after the
    // same step, so there a rank's request counts once the job has agreed on it: with the
    // figures of each logged interval (a stop waits at most log_every_n_steps steps).
    bool stopping(const std::stop_token& stop) const {
        return dp ? jobStopRequested : stop.stop_requested();
    }
    int64_t ranks() const { return dp ? dp->size() : 1; }
    bool done() const {
        return (config.maxSteps > 0 && pos.step >= config.maxSteps) ||
               (config.maxEpochs > 0 && pos.epoch >= config.maxEpochs);
    }
};

Trainer::Trainer(RunConfig config, EventSink& sink, TrainerOptions options)
    : m_state(std::make_unique<State>(std::move(config), sink, std::move(options))) {}

Trainer::~Trainer() = default;

void Trainer::State::setup() {
    config.validate();
    std::string deviceText = config.device;
    if (config.distributed == "mpi") {
        Communicator& comm =
            options.communicator ? *options.communicator : MpiCommunicator::world();
        comm.setTimeout(std::chrono::seconds(config.ddpTimeoutS));
        if (config.ranks > 1 && config.ranks != comm.size())
            throw ConfigError("ranks", "ranks=" + std::to_string(config.ranks) + " but " +
                                           std::to_string(comm.size()) +
                                           " ranks were started; make them agree");
        dp = std::make_unique<DataParallel>(comm, config);
        // Before anything touches CUDA: the probe's context goes on this rank's own GPU, not
        // on GPU 0 for every rank.
        setCudaProbeDevice(dp->gpuOfThisRank());
        deviceText = dp->deviceOfThisRank(probeCuda().usable);
    }
    const Device device = resolveDevice(deviceText);
    backend = createBackend(device, config.threads);
    if (dp)
        log(LogLevel::Info, dp->connect(*backend));
    backend->setDeterministic(config.deterministic);
    backend->setFlushDenormals(config.flushDenormals); // this thread and the compute pool
    backend->setMemoryFormat(memoryFormatOf(config.memoryFormat));
    backend->setConvAlgorithm(convAlgorithmOf(config.convAlgorithm));
    const std::string pretrained = config.modelOptions.value("pretrained", "");
    const DatasetSplits data = openDatasets(config.data, config.seed, !pretrained.empty());
    if (data.normStats == "imagenet")
        log(LogLevel::Info,
            "inputs normalised with ImageNet's mean (0.485, 0.456, 0.406) and std (0.229, 0.224, "
            "0.225), as torchvision's pretrained weights expect (data.norm_stats=" +
                config.data.normStats + ")");
    for (const std::string& warning : pretrainedInputWarnings(config, data.train->sampleShape()))
        log(LogLevel::Warning, "model.pretrained: " + warning);
    requireTrainingStep(config, *data.train, *data.validation);
    // Before the model takes memory and time: a folder that cannot be written fails now, not at
    // the first save after an epoch of training.
    checkpointer = std::make_unique<Checkpointer>(config, options.runId, options.checkpointRoot);
    if (isRankZero())
        checkpointer->prepareDirectory(); // rank 0 alone saves
    const auto* text = dynamic_cast<const TextDataset*>(data.train.get());
    if (text)
        checkpointer->setVocabulary({text->corpus().tokens, text->corpus().byteLevel});
    detectionTrain = dynamic_cast<const DetectionDataset*>(data.train.get());
    if (!detectionTrain && isYoloV8(config.model)) // before its spec refuses the sample shape
        throw detectorOnClasses();
    segmentation = isSegmentationDataset(config.data.name);
    if (!segmentation && config.model == "unet") // the same for a U-Net
        throw segmenterOnClasses();
    const nlohmann::json spec = modelSpec(config.model, data.train->sampleShape(),
                                          data.train->numClasses(), config.modelOptions);
    const DType actDtype = activationDtypeOf(config.precision);
    // From shapes alone, before the model takes any memory: one too large for the machine fails
    // here with its estimate, not with std::bad_alloc minutes into allocating it.
    const MemoryEstimate estimate =
        estimateTrainingMemory(spec, actDtype, config.batchSize, config.optimizer);
    requireMemoryFits(estimate, config.batchSize, *backend);
    memory = estimate;
    graph = std::make_unique<Graph>(spec, *backend, actDtype, config.seed);
    if (text)
        sampler = std::make_unique<TextGenerator>(*graph, text->corpus().tokens,
                                                  text->corpus().byteLevel);
    if (detectionTrain && !graph->detectHead())
        throw ConfigError("model", config.data.name + " is a detection set (images with boxes): "
                                                      "train a detector on it (yolov8n, yolov8s)");
    if (!detectionTrain && graph->detectHead())
        throw detectorOnClasses();
    if (segmentation && !graph->pixelLogits())
        throw ConfigError("model", config.data.name +
                                       " is a segmentation set (a class for every pixel): train "
                                       "a segmentation model on it (unet)");
    if (!segmentation && graph->pixelLogits())
        throw segmenterOnClasses();
    if (segmentation && graph->positions() != data.train->targetsPerSample())
        throw ConfigError("model", config.model + " scores " + std::to_string(graph->positions()) +
                                       " pixels of an image of " +
                                       std::to_string(data.train->targetsPerSample()) +
                                       ": its output must have its input's size");
    if (segmentation)
        for (const std::string& warning : data.warnings)
            log(LogLevel::Warning, warning);
    if (detectionTrain) {
        detection = std::make_unique<DetectionObjective>(
            *graph->detectHead(), detectionTrain->imageSize(),
            detect::DetectionLossOptions{config.detectionGains.box,
                                         config.detectionGains.cls,
                                         config.detectionGains.dfl,
                                         {}});
        detectionLoss = Tensor::host({2}, DType::F32);
        for (const std::string& warning : data.warnings)
            log(LogLevel::Warning, warning);
    }
    if (!(graph->inputShape() == data.train->sampleShape()))
        throw ConfigError("model", "the model takes " + graph->inputShape().toString() +
                                       " samples but " + config.data.name + " has " +
                                       data.train->sampleShape().toString());
    if (graph->trainableParameterCount() < graph->parameterCount()) {
        int frozen = 0;
        for (const Layer* layer : graph->layers())
            frozen += layer->frozen();
        log(LogLevel::Info,
            "finetune.freeze=" + config.modelOptions.value("freeze", std::string()) + ": " +
                formatCount(graph->trainableParameterCount()) + " of " +
                formatCount(graph->parameterCount()) + " parameters train; " +
                std::to_string(frozen) +
                " layers keep their weights, their batch norms their running statistics");
    }
    if (!options.weightsFrom.empty()) {
        Checkpointer::loadWeights(options.weightsFrom, *graph);
        log(LogLevel::Info, "weights from " + options.weightsFrom);
    } else if (!pretrained.empty() && options.resumeFrom.empty()) { // a resumed run has its own
        for (const std::string& line : describePretrained(loadPretrained(
                 pretrained, *graph, config.modelOptions.value("pretrained_strict", false))))
            log(LogLevel::Info, line);
    }
    LoaderOptions lo;
    lo.batchSize = config.batchSize;
    lo.shuffle = config.shuffle;
    lo.dropLast = config.dropLast;
    lo.numWorkers = config.numWorkers;
    lo.prefetchFactor = config.prefetchFactor;
    lo.pinMemory = config.pinMemory;
    lo.seed = config.seed;
    lo.flushDenormals = config.flushDenormals;
    if (dp) {
        lo.rank = dp->rank();
        lo.worldSize = dp->size();
    }
    trainLoader = std::make_unique<DataLoader>(data.train, lo, *backend);
    batchSlots = std::make_unique<DeviceBatchSlots>(*backend);
    lo.rank = 0; // every rank validates on the whole split: the same weights, the same figures
    lo.worldSize = 1;
    lo.shuffle = false;
    lo.dropLast = false;
    valLoader = std::make_unique<DataLoader>(data.validation, lo, *backend);
    if (config.pinMemory && !trainLoader->pinned())
        log(LogLevel::Info, "pin_memory has no effect on the CPU backend: batches already live "
                            "in the memory the model computes from");
    if (device.kind == Device::Kind::Cpu)
        if (const auto note = emulatedPrecisionNote(config.precision, cpuLowPrecisionSupport()))
            log(LogLevel::Warning, *note);
    log(LogLevel::Info, denormalNote(config.flushDenormals, device));
    if (!config.pinMemory && device.isCuda())
        log(LogLevel::Info, "pin_memory=false: each batch is staged through pageable memory and "
                            "its copy to the GPU blocks the host until the GPU has caught up; "
                            "pin_memory=true makes the copy asynchronous");

    const StepPlan plan = planStepsFromBatches(config, trainLoader->batchesPerEpoch());
    stepsPerEpoch = plan.stepsPerEpoch;
    totalSteps = plan.totalSteps;
    optimizer = std::make_unique<Optimizer>(
        *backend, fineTuneParamGroups(*graph, config.headLrMult), config.optimizer);
    if (config.headLrMult != 1.0f)
        log(LogLevel::Info, describeParamGroups(optimizer->groups(), config.headLrMult));
    const uint64_t deviceBytes = backend->memoryStats().deviceTotal;
    log(LogLevel::Info,
        "training memory estimate at batch " + std::to_string(config.batchSize) + ": about " +
            formatBytes(static_cast<uint64_t>(memory.total())) + " (activations " +
            formatBytes(static_cast<uint64_t>(memory.activations)) + ")" +
            (deviceBytes ? " of " + formatBytes(deviceBytes) + " on " + backend->device().toString()
                         : std::string()));
    schedule = std::make_unique<LrSchedule>(config.schedule, config.lr, totalSteps);
    if (config.precision == "16-mixed") {
        scaler = std::make_unique<GradScaler>(*backend, config.scaler);
        skippedSteps = backend->empty({1}, DType::F32);
    }
    lossSum = backend->empty({2}, DType::F32);
    lossHost = Tensor::host({2}, DType::F32);
    for (std::size_t i = 0; segmentation && i < graph->auxiliaryOutputs().size(); ++i)
        auxiliaryLossSums.push_back(backend->empty({2}, DType::F32));
    auxiliaryHost = Tensor::host({2}, DType::F32);
    if (config.gradientClipVal > 0.0f) {
        for (Param* p : graph->params())
            clippedGradients.push_back(&p->grad);
        clipStats = backend->empty({2}, DType::F32);
    }
    graph->zeroGrad();
    const CudaStatus& cuda = probeCuda();
    advisor = std::make_unique<Advisor>(
        AdvisorContext{config.numWorkers, config.precision, backend->device().toString(),
                       cuda.usable, cuda.gpus.empty() ? std::string() : cuda.gpus[0].name});
    pos.ranks = static_cast<int>(ranks());
    pos.batchSize = config.batchSize;
    if (!options.resumeFrom.empty()) {
        pos = checkpointer->load(options.resumeFrom, *graph, *optimizer, scaler.get());
        summary.bestValAcc = pos.bestValAcc;
        summary.bestEpoch = pos.bestEpoch;
        if (pos.ranks != ranks() || pos.batchSize != config.batchSize)
            continueOnAnotherJobShape();
    }
    if (dp) { // every rank starts from rank 0's replica, as DistributedDataParallel's wrap
        dp->checkSameRun(config, *graph);
        dp->broadcastState(*graph);
        dp->attach(*graph);
        log(LogLevel::Info, dp->describe(backend->device().toString()));
    }
}

// A checkpoint of another rank count or batch size: the epoch goes on from the same place in
// its order, and the log says what changes with the effective batch.
void Trainer::State::continueOnAnotherJobShape() {
    const Position saved = pos;
    const int64_t repeated = moveToJobShape(pos, static_cast<int>(ranks()), config.batchSize);
    const int64_t savedBatch = saved.ranks * saved.batchSize * config.accumulateGradBatches;
    const int64_t batch = ranks() * config.batchSize * config.accumulateGradBatches;
    std::string text = "resumed on " + std::to_string(ranks()) + " rank(s) x batch " +
                       std::to_string(config.batchSize) + " from a checkpoint of " +
                       std::to_string(saved.ranks) + " x " + std::to_string(saved.batchSize) +
                       ": epoch " + std::to_string(pos.epoch + 1) + " goes on " +
                       std::to_string(saved.batchInEpoch * saved.batchSize * saved.ranks) +
                       " samples into its order (batch " + std::to_string(pos.batchInEpoch) +
                       " of " + std::to_string(trainLoader->batchesPerEpoch()) + " on each rank)";
    if (repeated > 0)
        text += ", reading the last " + std::to_string(repeated) +
                " of them again to start on a batch boundary";
    if (batch != savedBatch)
        text += "; the effective batch is now " + std::to_string(batch) + " (was " +
                std::to_string(savedBatch) + "), so an epoch has " + std::to_string(stepsPerEpoch) +
                " optimizer steps and the learning-rate "
                "schedule spans this run's " +
                std::to_string(totalSteps) +
                " steps; steps taken "
                "and samples seen go on from " +
                std::to_string(pos.step) + " and " + std::to_string(pos.samplesSeen);
    log(LogLevel::Info, text);
}

// One epoch (or what is left of it after a resume). Returns false when stopped.
bool Trainer::State::trainEpoch(std::stop_token& stop) {
    if (detectionTrain) {
        // Ultralytics' close_mosaic: the last epochs see whole images, as validation does.
        const bool closing = config.maxEpochs > 0 && config.data.closeMosaic > 0 &&
                             pos.epoch >= config.maxEpochs - config.data.closeMosaic;
        if (closing && detectionTrain->mosaic())
            log(LogLevel::Info,
                "close_mosaic: the last " +
                    std::to_string(std::min<int64_t>(config.data.closeMosaic, config.maxEpochs)) +
                    " epochs train without mosaic");
        detectionTrain->setMosaic(!closing && config.data.detectAugment.mosaic > 0);
    }
    trainLoader->startEpoch(pos.epoch, pos.batchInEpoch);
    const int k = config.accumulateGradBatches;
    int pending = 0;
    Interval interval;
    trainCorrect = trainPredictions = 0.0;
    trainLossSum = trainLossBatches = 0.0;
    backend->fill(lossSum, 0.0f);
    for (Tensor& sums : auxiliaryLossSums)
        backend->fill(sums, 0.0f);
    intervalTerms = {};
    if (scaler)
        backend->fill(skippedSteps, 0.0f);
    if (clipStats.defined())
        backend->fill(clipStats, 0.0f);
    while (true) {
        if (pending == 0)
            profiler.maybeStart(pos.step, *graph, *optimizer, *backend);
        std::optional<Batch> batch = trainLoader->next();
        const bool endOfEpoch = !batch;
        StepTimeline* timeline = profiler.timeline();
        if (batch) {
            profiler.microBatch(pending == 0, batch->waitMs);
            Interval::MicroBatchEvents ev;
            ev.start = backend->recordEvent();
            // Issued now, the copy runs while the batch before still computes (double buffered);
            // what the compute stream then waits for of it (start to copied) is its exposed part.
            const auto [x, y] = batchSlots->stage(batch->inputs, batch->labels);
            ev.copied = backend->recordEvent();
            if (timeline)
                timeline->mark("h2d", SpanKind::Phase);
            const Tensor& logits = graph->forward(x, true);
            ev.forwarded = backend->recordEvent();
            Tensor& dlogits = graph->logitsGrad();
            int64_t predictions = batch->labels.numel();
            if (detection) {
                addDetectionLoss(logits, batch->labels, dlogits, k);
            } else if (segmentation) {
                predictions = countedPixels(batch->labels);
                backend->pixelCrossEntropy(logits, y, kIgnoreIndex, predictions, lossSum, &dlogits,
                                           scaler ? &scaler->state() : nullptr,
                                           static_cast<float>(k));
                addAuxiliaryLosses(y, predictions, k);
            } else {
                Tensor dlogitRows = logitRows(dlogits);
                backend->softmaxCrossEntropy(
                    logitRows(logits), labelRows(y), config.labelSmoothing, lossSum, &dlogitRows,
                    scaler ? &scaler->state() : nullptr, static_cast<float>(k));
            }
            if (timeline)
                timeline->mark("loss", SpanKind::Phase);
            if (dp && pending + 1 == k)
                dp->beginLastBackward();
            graph->backward(dlogits, !auxiliaryLossSums.empty());
            batchSlots->consumed();
            ev.backwarded = backend->recordEvent();
            interval.add(std::move(ev));
            interval.waitMs += batch->waitMs;
            // Every rank's shard batches alike, so the job's samples are this rank's x ranks.
            interval.samples += static_cast<double>(batch->labels.dim(0) * ranks());
            interval.predictions += static_cast<double>(predictions * ranks());
            pos.samplesSeen += batch->labels.dim(0) * ranks();
            ++pos.batchInEpoch;
            ++pending;
        }
        if (pending == k || (endOfEpoch && pending > 0)) {
            if (dp) {
                interval.add(dp->reduceGradients());
                if (timeline)
                    timeline->mark("all-reduce", SpanKind::Phase);
            }
            Interval::StepEvents ev;
            ev.start = backend->recordEvent();
            const float lr = schedule->lr(pos.step);
            if (scaler) {
                scaler->checkGradients(graph->params());
                if (timeline)
                    timeline->mark("grad-check", SpanKind::Phase);
            }
            if (clipStats.defined()) {
                backend->clipGradNorm(clippedGradients, config.gradientClipVal,
                                      scaler ? &scaler->state() : nullptr, clipStats);
                if (timeline)
                    timeline->mark("grad-clip", SpanKind::Phase);
            }
            optimizer->step(lr, scaler ? &scaler->state() : nullptr,
                            scaler ? &scaler->foundInf() : nullptr,
                            1.0f - schedule->warmupFraction(pos.step));
            if (scaler) {
                backend->add(skippedSteps, scaler->foundInf(), skippedSteps);
                scaler->update();
            }
            graph->zeroGrad();
            if (timeline)
                timeline->mark("zero-grad", SpanKind::Phase);
            if (dp) {
                dp->broadcastBuffers();
                if (timeline)
                    timeline->mark("broadcast-buffers", SpanKind::Phase);
            }
            ev.end = backend->recordEvent();
            interval.add(std::move(ev));
            ++pos.step;
            pending = 0;
            profileStepDone(false);
            const bool last = done() || stopping(stop);
            if (interval.steps == config.logEveryNSteps || last)
                logInterval(interval, lr, stop);
            if (!last && !dp) // a rank that paused would hold up the job's collectives
                waitWhilePaused(interval, lr, stop);
            if (done() && !endOfEpoch)
                return true;
            if (stopping(stop))
                return false;
        }
        if (endOfEpoch) {
            profileStepDone(true);
            if (interval.steps > 0)
                logInterval(interval, schedule->lr(pos.step - 1), stop);
            return true;
        }
    }
}

void Trainer::State::logInterval(Interval& interval, float lr, const std::stop_token& stop) {
    backend->copy(lossSum, lossHost); // waits for the interval's work: its events are complete
    std::vector<double> auxiliary;    // each auxiliary head's loss, summed over the micro-batches
    for (Tensor& sums : auxiliaryLossSums) {
        backend->copy(sums, auxiliaryHost);
        auxiliary.push_back(auxiliaryHost.data<float>()[0]);
        backend->fill(sums, 0.0f);
    }
    StepEvent ev;
    interval.fold(true);
    const auto steps = static_cast<double>(interval.steps);
    const auto micro = static_cast<double>(interval.microBatches);
    ev.step = pos.step;
    ev.epoch = pos.epoch + 1;
    ev.samplesSeen = pos.samplesSeen;
    ev.unixTime = nowUnix();
    if (dp) { // the job's: the ranks' mean losses averaged, their correct predictions summed,
              // and whether any rank was asked to stop
        std::vector<double> sums{
            lossHost.data<float>()[0], lossHost.data<float>()[1], stop.stop_requested() ? 1.0 : 0.0,
            intervalTerms.box,         intervalTerms.cls,         intervalTerms.dfl};
        sums.insert(sums.end(), auxiliary.begin(), auxiliary.end());
        dp->sum(sums);
        for (std::size_t i = 0; i < auxiliary.size(); ++i)
            auxiliary[i] = sums[6 + i] / dp->size();
        lossHost.data<float>()[0] = static_cast<float>(sums[0] / dp->size());
        lossHost.data<float>()[1] = static_cast<float>(sums[1]);
        jobStopRequested = sums[2] > 0.0;
        intervalTerms = {sums[3] / dp->size(), sums[4] / dp->size(), sums[5] / dp->size()};
    }
    ev.loss = lossHost.data<float>()[0] / micro;
    if (detection) // Ultralytics' three columns
        ev.lossTerms = {{"box", intervalTerms.box / micro},
                        {"cls", intervalTerms.cls / micro},
                        {"dfl", intervalTerms.dfl / micro}};
    for (std::size_t i = 0; i < auxiliary.size(); ++i)
        ev.lossTerms.push_back(
            {i == 0 ? "aux" : "aux" + std::to_string(i + 1), auxiliary[i] / micro});
    trainLossSum += lossHost.data<float>()[0];
    trainLossBatches += micro;
    trainCorrect += lossHost.data<float>()[1];
    trainPredictions += interval.predictions;
    ev.lr = lr;
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - interval.start)
            .count();
    ev.stepMs = ms / steps;
    ev.dataWaitMs = interval.waitMs / steps;
    ev.h2dMs = interval.h2dMs / steps;
    ev.forwardMs = interval.forwardMs / steps;
    ev.backwardMs = interval.backwardMs / steps;
    ev.optimizerMs = interval.optimizerMs / steps;
    ev.allReduceMs = interval.allReduceMs / steps;
    if (dp)
        ev.ranks = dp->gatherTimes({ev.stepMs, ev.dataWaitMs,
                                    ev.forwardMs + ev.backwardMs + ev.optimizerMs, ev.allReduceMs});
    ev.samplesPerSec = ms > 0 ? interval.samples / ms * 1000.0 : 0.0;
    if (scaler) {
        Tensor skipped = Tensor::host({1}, DType::F32);
        backend->copy(skippedSteps, skipped);
        ev.skipped = skipped.data<float>()[0] > 0.0f;
        ev.lossScale = scaler->scale();
        backend->fill(skippedSteps, 0.0f);
    }
    if (clipStats.defined()) {
        Tensor stats = Tensor::host({2}, DType::F32);
        backend->copy(clipStats, stats);
        ev.gradNorm = stats.data<float>()[0];
        ev.clippedSteps = static_cast<int>(stats.data<float>()[1]);
        backend->fill(clipStats, 0.0f);
    }
    // Checked here, where the loss is read back anyway: no extra sync per step. Under 16-mixed an
    // overflow is the GradScaler's to handle (it skipped the step and lowered the scale), until
    // the scale has backed off below 1 and the loss is still not finite: then no scale helps.
    const bool scalerHandlesIt = ev.skipped && ev.lossScale >= 1.0;
    if (!std::isfinite(ev.loss) && !scalerHandlesIt)
        throw NonFiniteLossError(pos.step, ev.loss, divergenceAdvice(lr, config.precision));
    backend->fill(lossSum, 0.0f);
    intervalTerms = {};
    samplesPerSecSum += ev.samplesPerSec;
    ++samplesPerSecCount;
    summary.finalTrainLoss = ev.loss;
    sink.onEvent(ev);
    for (const AdviceEvent& advice :
         advisor->onStep(ev, options.latestSample ? options.latestSample() : std::nullopt))
        sink.onEvent(advice);
    interval.reset();
}

void Trainer::State::profileStepDone(bool early) {
    if (!profiler.timeline())
        return; // no profile runs: nothing to do on the step's path
    ProfileContext context;
    context.model = graph->name();
    context.device = backend->device().toString();
    context.precision = config.precision;
    context.optimizer = config.optimizer.name;
    context.momentum = config.optimizer.momentum;
    context.batch = config.batchSize;
    for (std::size_t g = 0; g < optimizer->groups().size(); ++g)
        for (const Param* p : optimizer->groups()[g].params)
            context.optimizerParams[optimizer->spanName(g)] += p->value.numel();
    const auto roofline = [this] { return machineRoofline(*backend, config.precision); };
    std::optional<ProfileReport> report = profiler.stepDone(context, roofline, early);
    if (!report)
        return;
    if (dp) // collective: every rank ends the same profiled step
        dp->gatherSpans(report->spans);
    sink.onEvent(ProfileEvent{std::move(*report)});
}

// Blocks between two optimizer steps while a pause is requested; a stop request ends the wait.
// The open logging interval is reported first, so the pause does not count as step time.
void Trainer::State::waitWhilePaused(Interval& interval, float lr, std::stop_token& stop) {
    if (!pauseRequested.load(std::memory_order_acquire))
        return;
    if (interval.steps > 0)
        logInterval(interval, lr, stop);
    sink.onEvent(PauseEvent{true, pos.step, nowUnix()});
    {
        std::unique_lock lock(pauseMutex);
        pauseChanged.wait(lock, stop, [&] { return !pauseRequested.load(); });
    }
    if (stop.stop_requested())
        return; // the run ends here; it does not go on
    sink.onEvent(PauseEvent{false, pos.step, nowUnix()});
    interval.reset(); // the next interval's clock starts now, not before the pause
}

RunFinishedEvent Trainer::run(std::stop_token stop) {
    State& s = *m_state;
    RunFinishedEvent finished;
    const auto started = std::chrono::steady_clock::now();
    // A CPU run's peak memory is the process's VmHWM: started over here, it is this run's, not
    // also that of a run this process trained before (the window's, an experiment's arms).
    if (!s.options.sharesProcess)
        resetProcessPeakRss();
    if (s.options.runId.empty())
        s.options.runId = makeRunId();
    // Announced even when setup fails, so a failed start is recorded too.
    RunStartedEvent ev;
    ev.runId = s.options.runId;
    ev.name = s.config.displayName();
    ev.config = s.config.toJson();
    ev.device = s.config.device;
    ev.resumed = !s.options.resumeFrom.empty();
    bool startedSent = false;
    try {
        s.setup();
        ev.device = s.backend->device().toString();
        ev.environment = {{"backend", s.backend->description()},
                          {"cuda", toJson(probeCuda())},
                          {"train_samples", s.trainLoader->dataset().description()},
                          {"ranks", s.ranks()}};
        for (const LayerRow& r : s.graph->summary(s.config.batchSize))
            ev.modelSummary.push_back({{"name", r.name},
                                       {"type", r.type},
                                       {"output", r.output.toString()},
                                       {"params", r.params},
                                       {"flops", r.flops}});
        ev.stepsPerEpoch = s.stepsPerEpoch;
        ev.totalSteps = s.totalSteps;
        ev.resumedFromStep = s.pos.step;
        s.announce(ev);
        startedSent = true;
        if (!probeCuda().usable && s.config.device == "auto")
            s.log(LogLevel::Info, "training on the CPU: " + probeCuda().reason);
        bool stopped = false;
        while (!s.done() && !stopped) {
            if (s.stopping(stop)) { // asked during setup or validation
                stopped = true;
                break;
            }
            const auto epochStart = std::chrono::steady_clock::now();
            const int64_t samplesBefore = s.pos.samplesSeen;
            stopped = !s.trainEpoch(stop);
            if (stopped)
                break;
            // max_steps may end the run inside an epoch: it is validated there once, at its
            // end (as Lightning ends a run on max_steps), so every run that trained reports a
            // measured accuracy. That epoch's row says how far it got; the checkpoint after
            // the loop resumes inside it.
            const bool epochComplete = s.pos.batchInEpoch >= s.trainLoader->batchesPerEpoch();
            EpochEvent epoch;
            epoch.epoch = s.pos.epoch + 1;
            epoch.step = s.pos.step;
            epoch.partial = !epochComplete;
            epoch.trainLoss = s.trainLossBatches > 0 ? s.trainLossSum / s.trainLossBatches : 0.0;
            epoch.trainAcc = s.trainPredictions > 0 ? s.trainCorrect / s.trainPredictions : 0.0;
            if (epochComplete) {
                s.pos.epoch = epoch.epoch;
                s.pos.batchInEpoch = 0;
                s.summary.epochs = epoch.epoch;
            }
            if (!s.evaluate(epoch, stop)) {
                stopped = true; // the epoch trained; the checkpoint resumes after it
                break;
            }
            epoch.seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - epochStart)
                    .count();
            epoch.samplesPerSec =
                static_cast<double>(s.pos.samplesSeen - samplesBefore) / epoch.seconds;
            if (s.sampler && s.isRankZero()) { // after the timing: it is not training
                GenerateOptions o;
                o.tokens = kEpochSampleTokens;
                o.seed = static_cast<uint64_t>(epoch.epoch);
                epoch.sample = s.sampler->generate(o);
            }
            const double fitness = fitnessOf(epoch);
            if (fitness > s.pos.bestFitness || s.summary.bestEpoch == 0) {
                s.summary.bestValAcc = epoch.valAcc;
                s.summary.bestEpoch = epoch.epoch;
                s.pos.bestFitness = fitness;
            }
            s.pos.bestValAcc = s.summary.bestValAcc;
            s.pos.bestEpoch = s.summary.bestEpoch;
            s.summary.finalValLoss = epoch.valLoss;
            s.summary.finalValAcc = epoch.valAcc;
            const bool periodic =
                s.config.saveEveryNEpochs > 0 && epoch.epoch % s.config.saveEveryNEpochs == 0;
            if (epochComplete && (periodic || s.done()) && s.isRankZero())
                epoch.checkpoint =
                    s.checkpointer->save(s.pos, *s.graph, *s.optimizer, s.scaler.get(),
                                         s.summary.bestEpoch == epoch.epoch);
            finished.checkpoint = epoch.checkpoint.empty() ? finished.checkpoint : epoch.checkpoint;
            s.sink.onEvent(epoch);
            if (!epochComplete)
                break;
        }
        if ((stopped || s.pos.batchInEpoch > 0) && s.isRankZero()) { // a stop or max_steps
            finished.checkpoint =
                s.checkpointer->save(s.pos, *s.graph, *s.optimizer, s.scaler.get(), false);
        }
        finished.status = stopped ? RunStatus::Stopped : RunStatus::Completed;
    } catch (const std::exception& e) {
        finished.status = RunStatus::Failed;
        finished.error = e.what();
        finished.failure = describeFailure(e, s.config);
        if (auto* oom = dynamic_cast<const OutOfMemoryError*>(&e); oom && s.backend) {
            if (s.memory.total() > 0)
                finished.error += " This run needs about " +
                                  formatBytes(static_cast<uint64_t>(s.memory.total())) +
                                  " at batch_size " + std::to_string(s.config.batchSize) + ".";
            try { // a device that fails here too must not hide the first error
                s.backend->releaseCachedMemory();
            } catch (const std::exception&) {
            }
        }
    }
    s.summary.steps = s.pos.step;
    s.summary.durationSec =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    s.summary.meanSamplesPerSec =
        s.samplesPerSecCount ? s.samplesPerSecSum / static_cast<double>(s.samplesPerSecCount) : 0.0;
    s.summary.peakMemoryBytes =
        s.backend && (s.backend->device().isCuda() || s.options.sharesProcess)
            ? s.backend->memoryStats().peakInUse
            : processPeakRssBytes().value_or(0);
    finished.summary = s.summary;
    if (!startedSent)
        s.announce(ev);
    s.sink.onEvent(finished);
    return finished;
}

void Trainer::pause() {
    m_state->pauseRequested.store(true, std::memory_order_release);
}

void Trainer::resume() {
    {
        std::lock_guard lock(m_state->pauseMutex);
        m_state->pauseRequested.store(false, std::memory_order_release);
    }
    m_state->pauseChanged.notify_all();
}

bool Trainer::pauseRequested() const {
    return m_state->pauseRequested.load(std::memory_order_acquire);
}

void Trainer::requestProfile(int steps, int64_t notBeforeStep) {
    m_state->profiler.request(steps, notBeforeStep);
}

RunConfig Trainer::configFromCheckpoint(const std::string& path) {
    return Checkpointer::configOf(path);
}

} // namespace tb

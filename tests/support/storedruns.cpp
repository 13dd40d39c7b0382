// writeStoredRun: the events a trainer would have sent, through the store's write calls.
#include "support/storedruns.h"

#include <cmath>
#include <functional>

namespace tb::test {

void writeStoredRun(RunStore& store, const StoredRun& run) {
    RunStartedEvent start;
    start.runId = run.id;
    start.name = run.name;
    start.config = {{"model", run.model}, {"dataset", run.dataset},
                    {"batch_size", 64},   {"accumulate_grad_batches", 1},
                    {"precision", "32"},  {"lr", 0.05},
                    {"optimizer", "sgd"}, {"seed", 0}};
    start.config.merge_patch(run.config);
    start.device = "cpu";
    start.stepsPerEpoch = run.stepsPerEpoch;
    start.totalSteps = run.steps;
    store.beginTransaction();
    store.beginRun(start, run.startedAt);
    const int64_t epochs = run.stepsPerEpoch > 0 ? run.steps / run.stepsPerEpoch : 0;
    RunSummary summary;
    for (int64_t i = 1; i <= run.steps; ++i) {
        StepEvent s;
        s.step = i;
        s.epoch = (i - 1) / std::max<int64_t>(run.stepsPerEpoch, 1) + 1;
        s.samplesSeen = i * 64;
        s.unixTime = run.startedAt + static_cast<double>(i) * 0.05;
        s.loss = 2.0 * run.lossScale / static_cast<double>(i);
        if (run.lossNoise > 0.0) {
            const std::size_t h = std::hash<std::string>{}(run.id + std::to_string(i));
            const double u = static_cast<double>(h % 2000) / 1000.0 - 1.0;
            s.loss *= 1.0 + run.lossNoise * u;
        }
        s.lr = 0.05;
        s.stepMs = 50.0;
        s.dataWaitMs = 5.0;
        s.forwardMs = 15.0;
        s.backwardMs = 25.0;
        s.optimizerMs = 5.0;
        s.samplesPerSec = 1280.0;
        store.addStep(run.id, s);
        if (run.withTelemetry && i % 5 == 0) {
            SystemSample sample;
            sample.unixTime = s.unixTime;
            sample.host.cpuPercent = 70.0 + static_cast<double>(i % 7);
            sample.host.ramUsedBytes = uint64_t{4} << 30;
            sample.host.ramTotalBytes = uint64_t{16} << 30;
            store.addSystemSample(run.id, sample);
        }
        if (run.stepsPerEpoch > 0 && i % run.stepsPerEpoch == 0) {
            const int64_t epoch = i / run.stepsPerEpoch;
            const auto k = static_cast<std::size_t>(epoch - 1);
            const double acc =
                k < run.valAcc.size() ? run.valAcc[k] : 0.9 - 0.4 / static_cast<double>(epoch + 1);
            EpochEvent e;
            e.epoch = epoch;
            e.step = i;
            e.trainLoss = s.loss;
            e.trainAcc = acc;
            e.valLoss = s.loss * 1.1;
            e.valAcc = acc;
            e.seconds = 0.5;
            e.samplesPerSec = 1280.0;
            store.addEpoch(run.id, e);
            if (acc > summary.bestValAcc) {
                summary.bestValAcc = acc;
                summary.bestEpoch = epoch;
            }
        }
    }
    store.updateProgress(run.id, run.steps, run.startedAt + static_cast<double>(run.steps) * 0.05);
    for (const std::string& tag : run.tags)
        store.addTag(run.id, tag);
    if (run.status != RunStatus::Running) {
        RunFinishedEvent f;
        f.status = run.status;
        summary.steps = run.steps;
        summary.epochs = epochs;
        summary.finalTrainLoss =
            2.0 * run.lossScale / static_cast<double>(std::max<int64_t>(run.steps, 1));
        summary.meanSamplesPerSec = 1280.0;
        summary.durationSec = static_cast<double>(run.steps) * 0.05;
        summary.peakMemoryBytes = uint64_t{200} << 20;
        f.summary = summary;
        f.checkpoint = run.checkpoint;
        if (run.status == RunStatus::Failed)
            f.error = "model: an injected failure";
        store.finishRun(run.id, f, run.startedAt + summary.durationSec);
    }
    store.commit();
}

} // namespace tb::test

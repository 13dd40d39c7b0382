// SyntheticRun: a plausible training run's event stream (decaying noisy loss, a step-time
// breakdown, GradScaler backoffs, 2 Hz telemetry for N GPUs) without training anything, for
// the chart screenshots and the live-view benchmark. Deterministic for a given seed.
#pragma once

#include "events/events.h"

#include <cstdint>
#include <random>

namespace tb::test {

struct SyntheticRunOptions {
    double startUnixTime = 1.7e9;
    int64_t batchSize = 128;
    int64_t stepsPerEpoch = 390; // logged steps per epoch (CIFAR-10 at batch 128)
    double stepSeconds = 0.05;   // wall time of one logged step
    int gpus = 4;                // 0: host telemetry only
    bool mixedPrecision = true;  // precision=16-mixed: loss scale and skipped steps
    int skipEvery = 1700;        // a GradScaler overflow every this many steps
    uint64_t seed = 1;
};

class SyntheticRun {
public:
    explicit SyntheticRun(SyntheticRunOptions options = {});

    const SyntheticRunOptions& options() const { return m_options; }
    RunStartedEvent started() const;
    // The next logged step (1, 2, ...); its unixTime advances by stepSeconds.
    StepEvent nextStep();
    // The epoch the last nextStep() completed, if it completed one.
    bool epochEnded() const;
    EpochEvent lastEpoch() const;
    // A telemetry reading at unixTime; GPU 1 reports no power (unsupported, as on some boards).
    SystemSample sample(double unixTime);

private:
    SyntheticRunOptions m_options;
    std::mt19937_64 m_rng;
    int64_t m_step = 0;
    double m_lossScale = 65536.0;
    int64_t m_cleanSteps = 0;
    double m_epochLossSum = 0.0;
    double m_lastEpochLoss = 0.0;
};

} // namespace tb::test

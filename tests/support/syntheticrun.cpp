// SyntheticRun: closed-form curves plus seeded noise; the loss scale follows GradScaler's rules.
#include "support/syntheticrun.h"

#include <algorithm>
#include <cmath>

namespace tb::test {

SyntheticRun::SyntheticRun(SyntheticRunOptions options) : m_options(options), m_rng(options.seed) {}

RunStartedEvent SyntheticRun::started() const {
    RunStartedEvent ev;
    ev.runId = "synthetic";
    ev.name = "resnet20 on cifar10 (synthetic)";
    ev.config = {{"precision", m_options.mixedPrecision ? "16-mixed" : "bf16-mixed"},
                 {"batch_size", m_options.batchSize}};
    ev.device = m_options.gpus > 0 ? "cuda:0" : "cpu";
    ev.stepsPerEpoch = m_options.stepsPerEpoch;
    return ev;
}

StepEvent SyntheticRun::nextStep() {
    std::normal_distribution<double> noise(0.0, 1.0);
    StepEvent s;
    s.step = ++m_step;
    s.epoch = (m_step - 1) / m_options.stepsPerEpoch;
    s.samplesSeen = m_step * m_options.batchSize;
    s.unixTime = m_options.startUnixTime + static_cast<double>(m_step) * m_options.stepSeconds;
    const double clean = 0.25 + 2.05 * std::exp(-static_cast<double>(m_step) / 2500.0);
    s.loss = std::max(0.01, clean * (1.0 + 0.12 * noise(m_rng)));
    s.lr = 0.1 * 0.5 * (1.0 + std::cos(M_PI * std::min(1.0, m_step / 200000.0)));
    s.dataWaitMs = std::max(0.0, 2.0 + 1.5 * noise(m_rng));
    s.h2dMs = 1.2 + 0.1 * noise(m_rng);
    s.forwardMs = 14.0 + 0.8 * noise(m_rng);
    s.backwardMs = 26.0 + 1.2 * noise(m_rng);
    s.optimizerMs = 3.0 + 0.2 * noise(m_rng);
    s.stepMs = s.dataWaitMs + s.h2dMs + s.forwardMs + s.backwardMs + s.optimizerMs + 1.5;
    s.samplesPerSec = static_cast<double>(m_options.batchSize) * 1000.0 / s.stepMs;
    if (m_options.mixedPrecision) {
        // GradScaler: x0.5 and skip on overflow, x2 after 2000 clean steps.
        s.skipped = m_options.skipEvery > 0 && m_step % m_options.skipEvery == 0;
        if (s.skipped) {
            m_lossScale /= 2.0;
            m_cleanSteps = 0;
        } else if (++m_cleanSteps == 2000) {
            m_lossScale *= 2.0;
            m_cleanSteps = 0;
        }
        s.lossScale = m_lossScale;
    }
    m_epochLossSum += s.loss;
    if (epochEnded()) {
        m_lastEpochLoss = m_epochLossSum / static_cast<double>(m_options.stepsPerEpoch);
        m_epochLossSum = 0.0;
    }
    return s;
}

bool SyntheticRun::epochEnded() const {
    return m_step > 0 && m_step % m_options.stepsPerEpoch == 0;
}

EpochEvent SyntheticRun::lastEpoch() const {
    EpochEvent e;
    e.epoch = m_step / m_options.stepsPerEpoch;
    e.step = m_step;
    e.trainLoss = m_lastEpochLoss;
    const double t = static_cast<double>(e.epoch);
    // Validation improves, then overfits a little after epoch ~12: the best epoch is inside.
    e.valLoss = 0.55 + 1.3 * std::exp(-t / 3.0) + 0.004 * std::max(0.0, t - 12.0) * t / 4.0;
    e.valAcc = std::min(0.95, 0.92 - 0.5 * std::exp(-t / 3.0) - 0.0015 * std::max(0.0, t - 12.0) +
                                  0.003 * std::sin(t * 1.7));
    e.trainAcc = std::min(0.99, 1.0 - 0.8 * std::exp(-t / 3.5));
    e.seconds = static_cast<double>(m_options.stepsPerEpoch) * m_options.stepSeconds;
    return e;
}

SystemSample SyntheticRun::sample(double unixTime) {
    std::normal_distribution<double> noise(0.0, 1.0);
    const double t = unixTime - m_options.startUnixTime;
    const bool running = t >= 0.0;
    SystemSample s;
    s.unixTime = unixTime;
    s.host.cpuPercent = std::clamp((running ? 55.0 : 4.0) + 5.0 * noise(m_rng), 0.0, 100.0);
    s.host.ramTotalBytes = 64ull << 30;
    s.host.ramUsedBytes = static_cast<uint64_t>((running ? 14.0 : 9.0) * double(1ull << 30));
    for (int i = 0; i < m_options.gpus; ++i) {
        GpuSample g;
        g.index = i;
        g.name = "NVIDIA H200";
        const double load = running ? 0.9 - 0.08 * i : 0.0;
        g.utilPercent = std::clamp(100.0 * load + 4.0 * noise(m_rng), 0.0, 100.0);
        g.memTotalBytes = 141ull << 30;
        g.memUsedBytes =
            static_cast<uint64_t>((running ? 38.0 + 6.0 * i : 0.6) * double(1ull << 30));
        g.temperatureC =
            34.0 + (running ? 30.0 * load * (1.0 - std::exp(-t / 60.0)) : 0.0) + 0.5 * noise(m_rng);
        if (i != 1)
            g.powerW = 75.0 + 520.0 * load + 10.0 * noise(m_rng);
        s.gpus.push_back(g);
    }
    return s;
}

} // namespace tb::test

// RunSeries: rows kept as recorded; a series is read out against an x axis on demand, with
// samples seen and wall time at any step interpolated from the step rows.
#include "store/runseries.h"

#include "core/errors.h"
#include "store/runstore.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace tb {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double finiteOrNaN(double v) {
    return std::isfinite(v) ? v : kNaN;
}

// Linear interpolation of ys at x over ascending xs, clamped to the ends.
double interpolate(const std::vector<double>& xs, const std::vector<double>& ys, double x) {
    if (xs.empty())
        return kNaN;
    if (x <= xs.front())
        return ys.front();
    if (x >= xs.back())
        return ys.back();
    const auto hi =
        static_cast<std::size_t>(std::upper_bound(xs.begin(), xs.end(), x) - xs.begin());
    const std::size_t lo = hi - 1;
    const double t = (x - xs[lo]) / (xs[hi] - xs[lo]);
    return ys[lo] + t * (ys[hi] - ys[lo]);
}

using StepValue = std::function<double(const StepEvent&)>;
using EpochValue = std::function<double(const EpochEvent&)>;
using SampleValue = std::function<std::optional<double>(const SystemSample&)>;

const std::vector<std::pair<SeriesInfo, StepValue>>& stepSeries() {
    static const std::vector<std::pair<SeriesInfo, StepValue>> all{
        {{"train/loss", "", false}, [](const StepEvent& s) { return s.loss; }},
        {{"lr", "", false}, [](const StepEvent& s) { return s.lr; }},
        {{"samples_per_s", "samples/s", true}, [](const StepEvent& s) { return s.samplesPerSec; }},
        {{"step_ms", "ms", false}, [](const StepEvent& s) { return s.stepMs; }},
        {{"data_wait_ms", "ms", false}, [](const StepEvent& s) { return s.dataWaitMs; }},
        {{"h2d_ms", "ms", false}, [](const StepEvent& s) { return s.h2dMs; }},
        {{"forward_ms", "ms", false}, [](const StepEvent& s) { return s.forwardMs; }},
        {{"backward_ms", "ms", false}, [](const StepEvent& s) { return s.backwardMs; }},
        {{"optimizer_ms", "ms", false}, [](const StepEvent& s) { return s.optimizerMs; }},
        {{"data_wait_share", "%", false},
         [](const StepEvent& s) { return s.stepMs > 0 ? 100.0 * s.dataWaitMs / s.stepMs : kNaN; }},
        {{"loss_scale", "", true}, [](const StepEvent& s) { return s.lossScale; }},
    };
    return all;
}

const std::vector<std::pair<SeriesInfo, EpochValue>>& epochSeries() {
    static const std::vector<std::pair<SeriesInfo, EpochValue>> all{
        {{"val/acc", "%", true}, [](const EpochEvent& e) { return 100.0 * e.valAcc; }},
        {{"val/loss", "", false}, [](const EpochEvent& e) { return e.valLoss; }},
        {{"train/acc", "%", true}, [](const EpochEvent& e) { return 100.0 * e.trainAcc; }},
        {{"train/epoch_loss", "", false}, [](const EpochEvent& e) { return e.trainLoss; }},
    };
    return all;
}

std::optional<double> bytesOf(const std::optional<uint64_t>& v) {
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

// Host series, then per GPU ("gpu0/util") for the GPUs 0..7 a machine may report.
const std::vector<std::pair<SeriesInfo, SampleValue>>& sampleSeries() {
    static const std::vector<std::pair<SeriesInfo, SampleValue>> all = [] {
        std::vector<std::pair<SeriesInfo, SampleValue>> v{
            {{"cpu/util", "%", false}, [](const SystemSample& s) { return s.host.cpuPercent; }},
            {{"ram/used", "bytes", false},
             [](const SystemSample& s) { return bytesOf(s.host.ramUsedBytes); }},
            {{"process/rss", "bytes", false},
             [](const SystemSample& s) { return bytesOf(s.host.processRssBytes); }},
        };
        for (int g = 0; g < 8; ++g) {
            const auto gpu = [g](const SystemSample& s) -> const GpuSample* {
                for (const GpuSample& x : s.gpus)
                    if (x.index == g)
                        return &x;
                return nullptr;
            };
            const std::string prefix = "gpu" + std::to_string(g) + "/";
            v.push_back({{prefix + "util", "%", true}, [gpu](const SystemSample& s) {
                             const GpuSample* x = gpu(s);
                             return x ? x->utilPercent : std::nullopt;
                         }});
            v.push_back({{prefix + "mem_used", "bytes", false}, [gpu](const SystemSample& s) {
                             const GpuSample* x = gpu(s);
                             return x ? bytesOf(x->memUsedBytes) : std::nullopt;
                         }});
        }
        return v;
    }();
    return all;
}

} // namespace

const char* toString(SeriesX x) {
    switch (x) {
    case SeriesX::Step:
        return "step";
    case SeriesX::Samples:
        return "samples";
    case SeriesX::Epoch:
        return "epoch";
    case SeriesX::Time:
        return "time";
    }
    return "step";
}

SeriesX seriesXFromString(const std::string& text, const std::string& field) {
    for (SeriesX x : {SeriesX::Step, SeriesX::Samples, SeriesX::Epoch, SeriesX::Time})
        if (text == toString(x))
            return x;
    throw ConfigError(field, "'" + text + "' must be step, samples, epoch or time");
}

const char* seriesXLabel(SeriesX x) {
    switch (x) {
    case SeriesX::Step:
        return "optimizer step";
    case SeriesX::Samples:
        return "samples seen";
    case SeriesX::Epoch:
        return "epoch";
    case SeriesX::Time:
        return "wall time (s)";
    }
    return "";
}

RunSeries RunSeries::load(RunStore& store, const RunRecord& run) {
    RunSeries s;
    s.m_record = run;
    s.m_steps = store.stepMetrics(run.id);
    s.m_epochs = store.epochMetrics(run.id);
    s.m_samples = store.systemSamples(run.id);
    return s;
}

RunStartedEvent RunSeries::startedEvent() const {
    RunStartedEvent e;
    e.runId = m_record.id;
    e.name = m_record.name;
    e.config = m_record.config;
    e.environment = m_record.environment;
    e.modelSummary = m_record.modelSummary;
    e.device = m_record.device;
    e.stepsPerEpoch = m_record.stepsPerEpoch.value_or(0);
    e.totalSteps = m_record.totalSteps.value_or(0);
    e.resumedFromStep = m_record.resumedFromStep;
    return e;
}

void RunSeries::append(const RunTailUpdate& u) {
    m_steps.insert(m_steps.end(), u.steps.begin(), u.steps.end());
    m_epochs.insert(m_epochs.end(), u.epochs.begin(), u.epochs.end());
    m_samples.insert(m_samples.end(), u.samples.begin(), u.samples.end());
    if (u.record)
        m_record = *u.record;
}

std::vector<SeriesInfo> RunSeries::catalog() {
    std::vector<SeriesInfo> out;
    for (const auto& [info, f] : stepSeries())
        out.push_back(info);
    for (const auto& [info, f] : epochSeries())
        out.push_back(info);
    for (const auto& [info, f] : sampleSeries())
        out.push_back(info);
    return out;
}

SeriesInfo RunSeries::info(const std::string& name) {
    for (const SeriesInfo& i : catalog())
        if (i.name == name)
            return i;
    return {name, "", false};
}

std::vector<std::string> RunSeries::names() const {
    std::vector<std::string> out;
    for (const SeriesInfo& i : catalog()) {
        const SeriesPoints p = points(i.name, SeriesX::Step);
        if (std::any_of(p.y.begin(), p.y.end(), [](double y) { return std::isfinite(y); }))
            out.push_back(i.name);
    }
    return out;
}

RunSeries::StepAxis RunSeries::stepAxis() const {
    StepAxis a;
    a.step.reserve(m_steps.size());
    a.samples.reserve(m_steps.size());
    a.unixTime.reserve(m_steps.size());
    for (const StepEvent& s : m_steps) {
        a.step.push_back(static_cast<double>(s.step));
        a.samples.push_back(static_cast<double>(s.samplesSeen));
        a.unixTime.push_back(s.unixTime);
    }
    return a;
}

double RunSeries::xAtStep(const StepAxis& a, double step, SeriesX x) const {
    switch (x) {
    case SeriesX::Step:
        return step;
    case SeriesX::Epoch: {
        const double perEpoch = static_cast<double>(m_record.stepsPerEpoch.value_or(0));
        return perEpoch > 0 ? step / perEpoch : kNaN;
    }
    case SeriesX::Samples:
        return interpolate(a.step, a.samples, step);
    case SeriesX::Time:
        return interpolate(a.step, a.unixTime, step) - m_record.startedAt;
    }
    return kNaN;
}

SeriesPoints RunSeries::points(const std::string& name, SeriesX x) const {
    SeriesPoints p;
    const StepAxis axis = stepAxis();
    for (const auto& [info, value] : stepSeries())
        if (info.name == name) {
            p.x.reserve(m_steps.size());
            p.y.reserve(m_steps.size());
            for (std::size_t i = 0; i < m_steps.size(); ++i) {
                p.y.push_back(finiteOrNaN(value(m_steps[i])));
                p.x.push_back(x == SeriesX::Samples ? axis.samples[i]
                              : x == SeriesX::Time  ? axis.unixTime[i] - m_record.startedAt
                                                    : xAtStep(axis, axis.step[i], x));
            }
            return p;
        }
    for (const auto& [info, value] : epochSeries())
        if (info.name == name) {
            for (const EpochEvent& e : m_epochs) {
                p.y.push_back(finiteOrNaN(value(e)));
                p.x.push_back(x == SeriesX::Epoch ? static_cast<double>(e.epoch)
                                                  : xAtStep(axis, static_cast<double>(e.step), x));
            }
            return p;
        }
    for (const auto& [info, value] : sampleSeries())
        if (info.name == name) {
            for (const SystemSample& s : m_samples) {
                const std::optional<double> v = value(s);
                if (!v)
                    continue;
                p.y.push_back(finiteOrNaN(*v));
                p.x.push_back(
                    x == SeriesX::Time
                        ? s.unixTime - m_record.startedAt
                        : xAtStep(axis, interpolate(axis.unixTime, axis.step, s.unixTime), x));
            }
            return p;
        }
    return p;
}

std::optional<double> firstReaching(const SeriesPoints& p, double target, bool higherIsBetter) {
    const auto reached = [&](double y) { return higherIsBetter ? y >= target : y <= target; };
    for (std::size_t i = 0; i < p.y.size(); ++i) {
        if (!std::isfinite(p.y[i]) || !reached(p.y[i]))
            continue;
        if (i == 0 || !std::isfinite(p.y[i - 1]) || p.y[i] == p.y[i - 1])
            return p.x[i];
        const double t = (target - p.y[i - 1]) / (p.y[i] - p.y[i - 1]);
        return p.x[i - 1] + std::clamp(t, 0.0, 1.0) * (p.x[i] - p.x[i - 1]);
    }
    return std::nullopt;
}

} // namespace tb

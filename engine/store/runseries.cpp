// RunSeries: rows kept as recorded; a series is read out against an x axis on demand, with
// samples seen and wall time at any step interpolated from the step rows.
#include "store/runseries.h"

#include "core/errors.h"
#include "store/runstore.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string_view>

namespace tb {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double finiteOrNaN(double v) {
    return std::isfinite(v) ? v : kNaN;
}

// The value `val` of the step rows, linearly interpolated at `at` of `key` (ascending over the
// rows), clamped to the first and last row; NaN without rows.
template <typename Key, typename Value>
double interpolateRows(const std::vector<StepEvent>& rows, double at, Key key, Value val) {
    if (rows.empty())
        return kNaN;
    if (at <= key(rows.front()))
        return val(rows.front());
    if (at >= key(rows.back()))
        return val(rows.back());
    const auto hi = std::partition_point(rows.begin(), rows.end(),
                                         [&](const StepEvent& r) { return key(r) <= at; });
    const auto lo = hi - 1;
    const double t = (at - key(*lo)) / (key(*hi) - key(*lo));
    return val(*lo) + t * (val(*hi) - val(*lo));
}

double stepOf(const StepEvent& r) {
    return static_cast<double>(r.step);
}
double samplesOf(const StepEvent& r) {
    return static_cast<double>(r.samplesSeen);
}
double timeOf(const StepEvent& r) {
    return r.unixTime;
}

// A named term of a step's loss (a detector's "box"); NaN where the step has none.
double lossTerm(const StepEvent& s, std::string_view name) {
    for (const LossTerm& t : s.lossTerms)
        if (t.name == name)
            return t.value;
    return kNaN;
}

// A figure of a detector's validation; NaN for other models' epochs.
template <typename Field> double detectionValue(const EpochEvent& e, Field field) {
    return e.validation.detection ? (*e.validation.detection).*field : kNaN;
}

using StepValue = std::function<double(const StepEvent&)>;
using EpochValue = std::function<double(const EpochEvent&)>;
using SampleValue = std::function<std::optional<double>(const SystemSample&)>;

const std::vector<std::pair<SeriesInfo, StepValue>>& baseStepSeries() {
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
        {{"allreduce_ms", "ms", false},
         [](const StepEvent& s) { return s.ranks.empty() ? kNaN : s.allReduceMs; }},
        {{"grad_norm", "", false},
         [](const StepEvent& s) { return s.gradNorm > 0.0 ? s.gradNorm : kNaN; }},
        {{"train/box_loss", "", false}, [](const StepEvent& s) { return lossTerm(s, "box"); }},
        {{"train/cls_loss", "", false}, [](const StepEvent& s) { return lossTerm(s, "cls"); }},
        {{"train/dfl_loss", "", false}, [](const StepEvent& s) { return lossTerm(s, "dfl"); }},
    };
    return all;
}

// Each rank's times of a data-parallel run ("rank1/step_ms"), for the first 16 ranks: a
// straggler or a starved rank shows against the others.
const std::vector<std::pair<SeriesInfo, StepValue>>& rankSeries() {
    static const std::vector<std::pair<SeriesInfo, StepValue>> all = [] {
        std::vector<std::pair<SeriesInfo, StepValue>> v;
        using Field = double RankStepTimes::*;
        const std::pair<const char*, Field> fields[] = {
            {"step_ms", &RankStepTimes::stepMs},
            {"data_wait_ms", &RankStepTimes::dataWaitMs},
            {"compute_ms", &RankStepTimes::computeMs},
            {"allreduce_ms", &RankStepTimes::allReduceMs}};
        for (std::size_t r = 0; r < 16; ++r)
            for (const auto& [name, field] : fields)
                v.push_back({{"rank" + std::to_string(r) + "/" + name, "ms", false},
                             [r, field](const StepEvent& s) {
                                 return r < s.ranks.size() ? s.ranks[r].*field : kNaN;
                             }});
        return v;
    }();
    return all;
}

// Every series of the step rows: the run's, then its ranks'.
const std::vector<std::pair<SeriesInfo, StepValue>>& stepSeries() {
    static const std::vector<std::pair<SeriesInfo, StepValue>> all = [] {
        auto v = baseStepSeries();
        v.insert(v.end(), rankSeries().begin(), rankSeries().end());
        return v;
    }();
    return all;
}

const std::vector<std::pair<SeriesInfo, EpochValue>>& epochSeries() {
    static const std::vector<std::pair<SeriesInfo, EpochValue>> all{
        {{"val/acc", "%", true}, [](const EpochEvent& e) { return 100.0 * e.valAcc; }},
        {{"val/loss", "", false}, [](const EpochEvent& e) { return e.valLoss; }},
        {{"train/acc", "%", true}, [](const EpochEvent& e) { return 100.0 * e.trainAcc; }},
        {{"train/epoch_loss", "", false}, [](const EpochEvent& e) { return e.trainLoss; }},
        // A detector's, as Ultralytics' results.csv names them (metrics/mAP50-95(B), ...).
        {{"val/map50_95", "", true},
         [](const EpochEvent& e) { return detectionValue(e, &DetectionReport::map5095); }},
        {{"val/map50", "", true},
         [](const EpochEvent& e) { return detectionValue(e, &DetectionReport::map50); }},
        {{"val/precision", "", true},
         [](const EpochEvent& e) { return detectionValue(e, &DetectionReport::precision); }},
        {{"val/recall", "", true},
         [](const EpochEvent& e) { return detectionValue(e, &DetectionReport::recall); }},
        {{"val/box_loss", "", false},
         [](const EpochEvent& e) { return detectionValue(e, &DetectionReport::boxLoss); }},
        {{"val/cls_loss", "", false},
         [](const EpochEvent& e) { return detectionValue(e, &DetectionReport::clsLoss); }},
        {{"val/dfl_loss", "", false},
         [](const EpochEvent& e) { return detectionValue(e, &DetectionReport::dflLoss); }},
        // A segmentation's mean IoU in percent, as torchvision's reference prints it (its pixel
        // accuracy is val/acc).
        {{"val/miou", "%", true},
         [](const EpochEvent& e) {
             return e.validation.segmentation ? 100.0 * e.validation.segmentation->meanIoU : kNaN;
         }},
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
    for (const RunLogEntry& e : store.events(run.id))
        if (e.kind == RunLogEntry::Kind::Advice)
            s.m_advice.push_back({e.rule, e.message, e.step.value_or(0), e.unixTime});
    return s;
}

RunStartedEvent RunSeries::startedEvent() const {
    return startedEventOf(m_record);
}

void RunSeries::append(const RunTailUpdate& u) {
    m_names.reset();
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

// Computed once per change of the rows: the comparison asks on every redraw.
const std::vector<std::string>& RunSeries::names() const {
    if (m_names)
        return *m_names;
    std::vector<std::string> out;
    const auto has = [&](const StepValue& value) {
        return std::any_of(m_steps.begin(), m_steps.end(),
                           [&](const StepEvent& s) { return std::isfinite(value(s)); });
    };
    for (const auto& [info, value] : baseStepSeries())
        if (has(value))
            out.push_back(info.name);
    // The ranks' series only where there are ranks: 64 checks of every row cost otherwise.
    if (std::any_of(m_steps.begin(), m_steps.end(),
                    [](const StepEvent& s) { return !s.ranks.empty(); }))
        for (const auto& [info, value] : rankSeries())
            if (has(value))
                out.push_back(info.name);
    for (const auto& [info, value] : epochSeries())
        if (std::any_of(m_epochs.begin(), m_epochs.end(),
                        [&](const EpochEvent& e) { return std::isfinite(value(e)); }))
            out.push_back(info.name);
    for (const auto& [info, value] : sampleSeries())
        if (std::any_of(m_samples.begin(), m_samples.end(), [&](const SystemSample& s) {
                const std::optional<double> v = value(s);
                return v && std::isfinite(*v);
            }))
            out.push_back(info.name);
    m_names = std::move(out);
    return *m_names;
}

double RunSeries::xAtStep(double step, SeriesX x) const {
    switch (x) {
    case SeriesX::Step:
        return step;
    case SeriesX::Epoch: {
        const double perEpoch = static_cast<double>(m_record.stepsPerEpoch.value_or(0));
        return perEpoch > 0 ? step / perEpoch : kNaN;
    }
    case SeriesX::Samples:
        return interpolateRows(m_steps, step, stepOf, samplesOf);
    case SeriesX::Time:
        return interpolateRows(m_steps, step, stepOf, timeOf) - m_record.startedAt;
    }
    return kNaN;
}

SeriesPoints RunSeries::points(const std::string& name, SeriesX x) const {
    SeriesPoints p;
    for (const auto& [info, value] : stepSeries())
        if (info.name == name) {
            p.x.reserve(m_steps.size());
            p.y.reserve(m_steps.size());
            for (const StepEvent& s : m_steps) {
                p.y.push_back(finiteOrNaN(value(s)));
                p.x.push_back(x == SeriesX::Samples ? samplesOf(s)
                              : x == SeriesX::Time  ? s.unixTime - m_record.startedAt
                                                    : xAtStep(stepOf(s), x));
            }
            return p;
        }
    for (const auto& [info, value] : epochSeries())
        if (info.name == name) {
            for (const EpochEvent& e : m_epochs) {
                p.y.push_back(finiteOrNaN(value(e)));
                p.x.push_back(x == SeriesX::Epoch ? static_cast<double>(e.epoch)
                                                  : xAtStep(static_cast<double>(e.step), x));
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
                        : xAtStep(interpolateRows(m_steps, s.unixTime, timeOf, stepOf), x));
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

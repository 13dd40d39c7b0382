// RunSeries: every recorded series of one run, by the names people use for them ("train/loss",
// "val/acc", "step_ms", "gpu0/util"), kept as the rows came (nothing dropped) and read against
// any x axis: optimizer step, samples seen, epoch or wall time since the run started. The
// window's comparison and `trainbench-cli runs compare` read runs through it, and a followed
// run grows by append() as its rows land. (PlotJuggler's PlotDataMapRef: named series in one
// map.)
#pragma once

#include "store/runrecord.h"
#include "store/runtail.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tb {

class RunStore;

enum class SeriesX { Step, Samples, Epoch, Time };
const char* toString(SeriesX x);
// "step", "samples", "epoch" or "time"; throws ConfigError(field) otherwise.
SeriesX seriesXFromString(const std::string& text, const std::string& field = "--x");
// The axis label with its unit: "optimizer step", "samples seen", "epoch", "wall time (s)".
const char* seriesXLabel(SeriesX x);

// A series read against one x axis, in x order; NaN y where the value was not finite.
struct SeriesPoints {
    std::vector<double> x, y;
    bool empty() const { return x.empty(); }
};

// What a series is: its unit for axis labels, and whether higher is better (for "best").
struct SeriesInfo {
    std::string name;
    std::string unit; // "", "%", "ms", "samples/s", "bytes"
    bool higherIsBetter = false;
};

class RunSeries {
public:
    RunSeries() = default;
    // All of a run's rows from the store. Throws StoreError.
    static RunSeries load(RunStore& store, const RunRecord& run);

    const RunRecord& record() const { return m_record; }
    void setRecord(RunRecord record) { m_record = std::move(record); }
    // Adds what a RunTail read since its last poll.
    void append(const RunTailUpdate& update);

    // The series this run has, in a stable order (training ones, validation, step time,
    // hardware); each with at least one finite value.
    const std::vector<std::string>& names() const;
    // Every series name a run can have, with its unit (also those this run lacks: GPU ones).
    static std::vector<SeriesInfo> catalog();
    static SeriesInfo info(const std::string& name);

    // The named series against x; empty when the run has no such series.
    SeriesPoints points(const std::string& name, SeriesX x) const;

    // The rows as recorded, to replay the run into views that draw a live one.
    const std::vector<StepEvent>& steps() const { return m_steps; }
    const std::vector<EpochEvent>& epochs() const { return m_epochs; }
    const std::vector<SystemSample>& samples() const { return m_samples; }
    // What the advisor said during the run, in order.
    const std::vector<AdviceEvent>& advice() const { return m_advice; }
    // The run's start as its trainer announced it, rebuilt from the record.
    RunStartedEvent startedEvent() const;

private:
    // x of a point recorded at optimizer step `step` (samples and time interpolated between
    // the step rows).
    double xAtStep(double step, SeriesX x) const;

    RunRecord m_record;
    std::vector<StepEvent> m_steps;
    std::vector<EpochEvent> m_epochs;
    std::vector<SystemSample> m_samples;
    std::vector<AdviceEvent> m_advice;
    mutable std::optional<std::vector<std::string>> m_names; // names(), until the rows change
};

// The first x at which a series reaches `target` (>= for higher-is-better series, else <=),
// linearly interpolated between the two points around it; nullopt when it never does.
std::optional<double> firstReaching(const SeriesPoints& points, double target, bool higherIsBetter);

} // namespace tb

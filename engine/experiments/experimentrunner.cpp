// runExperiment: a RunSession per arm and repeat, with a sink that keeps the step events.
#include "experiments/experimentrunner.h"

#include "core/errors.h"
#include "experiments/experimentimages.h"
#include "session/localjobsession.h"

#include <algorithm>
#include <mutex>

namespace tb {

namespace {

// Keeps what a repeat's figures are made of.
class RepeatSink final : public EventSink {
public:
    void onEvent(const Event& event) override {
        std::lock_guard lock(m_mutex);
        if (const auto* s = std::get_if<StepEvent>(&event))
            m_steps.push_back(*s);
        else if (const auto* r = std::get_if<RunStartedEvent>(&event))
            m_device = r->device;
    }
    std::vector<StepEvent> steps() const {
        std::lock_guard lock(m_mutex);
        return m_steps;
    }
    std::string device() const {
        std::lock_guard lock(m_mutex);
        return m_device;
    }

private:
    mutable std::mutex m_mutex;
    std::vector<StepEvent> m_steps;
    std::string m_device;
};

} // namespace

ArmRepeat measureRepeat(const std::vector<StepEvent>& steps, const RunFinishedEvent& finished) {
    ArmRepeat r;
    r.peakMemoryBytes = static_cast<double>(finished.summary.peakMemoryBytes);
    if (finished.status == RunStatus::Failed) {
        r.error = finished.error;
        return r;
    }
    if (steps.empty())
        return r;
    // The first tenth warms up (allocations, primitive creation, the loader's first batches).
    const std::size_t from = steps.size() / 10, tail = std::max<std::size_t>(steps.size() / 10, 1);
    const auto counted = static_cast<double>(steps.size() - from);
    for (std::size_t i = from; i < steps.size(); ++i) {
        const StepEvent& s = steps[i];
        r.samplesPerSec += s.samplesPerSec / counted;
        r.parts.stepMs += s.stepMs / counted;
        r.parts.dataWaitMs += s.dataWaitMs / counted;
        r.parts.copyMs += s.h2dMs / counted;
        r.parts.forwardMs += s.forwardMs / counted;
        r.parts.backwardMs += s.backwardMs / counted;
        r.parts.optimizerMs += s.optimizerMs / counted;
        r.parts.allReduceMs += s.allReduceMs / counted;
    }
    double loss = 0.0;
    for (std::size_t i = steps.size() - tail; i < steps.size(); ++i)
        loss += steps[i].loss;
    r.finalLoss = loss / static_cast<double>(tail);
    return r;
}

ExperimentResult runExperiment(const ExperimentPreset& preset, const RunConfig& base,
                               const ExperimentOptions& options, std::stop_token stop) {
    const ExperimentData data = experimentData(
        preset, base, options.exportsRoot.empty() ? defaultExportsRoot() : options.exportsRoot);
    if (options.onData && !data.note.empty())
        options.onData(data.note);
    ExperimentResult result;
    for (const ExperimentArm& arm : preset.arms)
        result.arms.push_back({arm, {}});
    for (int repeat = 0; repeat < preset.repeats && !result.stopped; ++repeat) {
        // Repeats interleave the arms, so a machine that slows down meanwhile slows them alike.
        for (std::size_t a = 0; a < preset.arms.size(); ++a) {
            if (stop.stop_requested()) {
                result.stopped = true;
                break;
            }
            const ExperimentArm& arm = preset.arms[a];
            RunConfig config = armConfig(data.config, preset, arm);
            config.set("name", preset.id + ": " + arm.label + " #" + std::to_string(repeat + 1));
            config.set("tags", "experiment:" + preset.id + ",arm:" + arm.label);
            // Each repeat its own seed (initial weights, shuffling): the spread of the repeats
            // is then what a result would vary by, not zero.
            config.set("seed", std::to_string(data.config.seed + static_cast<uint64_t>(repeat)));
            RepeatSink sink;
            std::vector<EventSink*> sinks = options.sinks;
            sinks.push_back(&sink);
            RunFinishedEvent finished;
            std::string runId;
            try {
                if (config.ranks > 1) { // a job of its own processes, followed in the store
                    LocalJobOptions job;
                    job.databasePath = options.session.databasePath;
                    job.forwardSystemSamples = false;
                    LocalJobSession session(config, job, sinks);
                    runId = session.runId();
                    finished = session.run(stop);
                } else {
                    RunSession session(config, options.session, sinks);
                    runId = session.runId();
                    finished = session.run(stop);
                }
            } catch (const Error& e) { // no store to follow a job through
                finished.status = RunStatus::Failed;
                finished.error = e.what();
            }
            if (finished.status == RunStatus::Stopped) {
                result.stopped = true;
                break;
            }
            ArmRepeat measured = measureRepeat(sink.steps(), finished);
            measured.runId = runId;
            measured.device = sink.device();
            measured.precision = config.precision;
            if (options.onRepeat)
                options.onRepeat(a, measured);
            result.arms[a].repeats.push_back(std::move(measured));
        }
    }
    result.conclusion = concludeExperiment(preset, result.arms);
    if (!data.note.empty())
        result.conclusion = data.note + " " + result.conclusion;
    return result;
}

} // namespace tb

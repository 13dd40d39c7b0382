// A profile of a few training steps inside a run: asked for from any thread (the window's
// "Profile 20 steps", `trainbench-cli profile`), started by the trainer at the next step
// boundary, and reported as a ProfileReport once its steps are done. While it runs, the graph
// and the trainer mark their spans on its timeline; the device is waited for only before the
// first profiled step and after the last.
#pragma once

#include "events/profilereport.h"
#include "nn/steptimeline.h"
#include "optim/optimizer.h"
#include "train/layerprofile.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace tb {

class StepProfiler {
public:
    // Thread-safe: profile the next `steps` optimizer steps once the run has taken
    // `notBeforeStep` (warm-up: the first steps pay for allocation and oneDNN's JIT).
    void request(int steps, int64_t notBeforeStep = 0);

    // At a step boundary, before the step's first batch is fetched: starts a requested profile
    // (waiting for the device first) and attaches its timeline to the graph and the optimizer.
    // `step`: steps done.
    void maybeStart(int64_t step, Graph& graph, Optimizer& optimizer, Backend& backend);
    // The running profile's timeline, null when none runs.
    StepTimeline* timeline() { return m_timeline.get(); }
    // A micro-batch arrived after the loader kept the trainer waiting for `waitMs`.
    void microBatch(bool firstOfStep, double waitMs);

    // After an optimizer step: the report once the profile's last step is done (or `early`: the
    // epoch ends, whose validation must not count as step time), else nothing. `roofline` is
    // asked once the steps are timed.
    std::optional<ProfileReport>
    stepDone(ProfileContext context, const std::function<Roofline()>& roofline, bool early = false);

private:
    void detach();

    std::atomic<int> m_requestedSteps{0};
    std::atomic<int64_t> m_notBefore{0};
    std::unique_ptr<StepTimeline> m_timeline;
    Graph* m_graph = nullptr;
    Optimizer* m_optimizer = nullptr;
    Backend* m_backend = nullptr;
    int m_stepsLeft = 0;
    int64_t m_firstStep = 0;
    std::vector<double> m_waits;
    std::chrono::steady_clock::time_point m_start;
};

} // namespace tb

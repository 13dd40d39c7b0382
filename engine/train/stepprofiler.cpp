#include "train/stepprofiler.h"

namespace tb {

void StepProfiler::request(int steps, int64_t notBeforeStep) {
    m_notBefore.store(notBeforeStep, std::memory_order_relaxed);
    m_requestedSteps.store(steps, std::memory_order_release);
}

void StepProfiler::maybeStart(int64_t step, Graph& graph, Optimizer& optimizer, Backend& backend) {
    if (m_timeline || step < m_notBefore.load(std::memory_order_relaxed))
        return;
    const int steps = m_requestedSteps.exchange(0, std::memory_order_acq_rel);
    if (steps <= 0)
        return;
    backend.synchronize(); // the steps before are not this profile's
    m_timeline = std::make_unique<StepTimeline>(backend);
    m_graph = &graph;
    m_optimizer = &optimizer;
    m_backend = &backend;
    m_stepsLeft = steps;
    m_firstStep = step;
    m_waits.clear();
    graph.setTimeline(m_timeline.get());
    optimizer.setTimeline(m_timeline.get());
    m_start = std::chrono::steady_clock::now();
}

void StepProfiler::microBatch(bool firstOfStep, double waitMs) {
    if (!m_timeline)
        return;
    if (firstOfStep) {
        m_timeline->beginStep();
        m_waits.push_back(0.0);
    }
    m_waits.back() += waitMs;
}

std::optional<ProfileReport> StepProfiler::stepDone(ProfileContext context,
                                                    const std::function<Roofline()>& roofline,
                                                    bool early) {
    if (!m_timeline || (!early && --m_stepsLeft > 0))
        return std::nullopt;
    m_backend->synchronize();
    if (m_waits.empty()) { // the epoch ended before a profiled step began: the next one takes it
        detach();
        m_timeline.reset();
        m_requestedSteps.store(m_stepsLeft, std::memory_order_release);
        return std::nullopt;
    }
    context.wallMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_start)
            .count();
    detach();
    context.firstStep = m_firstStep;
    context.dataWaitMs = m_waits;
    context.roofline = roofline(); // after the wall time: measuring it is not the steps' time
    ProfileReport report = buildProfileReport(*m_graph, m_timeline->spans(), context);
    m_timeline.reset();
    return report;
}

void StepProfiler::detach() {
    m_graph->setTimeline(nullptr);
    m_optimizer->setTimeline(nullptr);
}

} // namespace tb

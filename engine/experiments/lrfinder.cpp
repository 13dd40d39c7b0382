// findLearningRate: a RunSession with the exponential schedule and a sink that ends it once the
// loss diverges.
#include "experiments/lrfinder.h"

#include "core/smoothing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>

namespace tb {

namespace {

class SweepSink final : public EventSink {
public:
    SweepSink(const LrFinderOptions& o, std::stop_source& stop) : m_options(o), m_stop(stop) {
        m_ema.reset(o.smoothing);
    }
    void onEvent(const Event& event) override {
        const auto* s = std::get_if<StepEvent>(&event);
        if (!s)
            return;
        std::lock_guard lock(m_mutex);
        const double smoothed = m_ema.add(s->loss);
        m_result.lr.push_back(s->lr);
        m_result.loss.push_back(s->loss);
        m_result.smoothed.push_back(smoothed);
        if (std::isfinite(smoothed))
            m_best = std::min(m_best, smoothed);
        if (!std::isfinite(s->loss) || smoothed > m_options.divergeFactor * m_best) {
            m_result.diverged = true;
            m_stop.request_stop(); // no point in sweeping further
        }
    }
    LrFinderResult result() const {
        std::lock_guard lock(m_mutex);
        return m_result;
    }

private:
    const LrFinderOptions& m_options;
    std::stop_source& m_stop;
    mutable std::mutex m_mutex;
    DebiasedEma m_ema;
    double m_best = INFINITY;
    LrFinderResult m_result;
};

std::string text(double v, int digits = 3) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

} // namespace

std::optional<double> suggestLearningRate(const std::vector<double>& lr,
                                          const std::vector<double>& smoothed) {
    const std::size_t n = std::min(lr.size(), smoothed.size());
    if (n < 5)
        return std::nullopt;
    std::size_t lowest = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (std::isfinite(smoothed[i]) &&
            (!std::isfinite(smoothed[lowest]) || smoothed[i] < smoothed[lowest]))
            lowest = i;
    std::optional<std::size_t> steepest;
    double slope = 0.0;
    // Central differences: the slope at a point, not between two.
    for (std::size_t i = std::max<std::size_t>(n / 10, 1); i < lowest && i + 1 < n; ++i) {
        const double dx = std::log(lr[i + 1]) - std::log(lr[i - 1]);
        if (!(dx > 0) || !std::isfinite(smoothed[i + 1]) || !std::isfinite(smoothed[i - 1]))
            continue;
        const double g = (smoothed[i + 1] - smoothed[i - 1]) / dx;
        if (g < slope) {
            slope = g;
            steepest = i;
        }
    }
    if (!steepest)
        return std::nullopt;
    return lr[*steepest];
}

LrFinderResult findLearningRate(const RunConfig& base, const LrFinderOptions& options,
                                const RunSessionOptions& session, std::vector<EventSink*> sinks,
                                std::stop_token stop) {
    RunConfig c = base;
    c.set("lr", text(options.maxLr, 17));
    c.set("min_lr", text(options.minLr, 17));
    c.set("lr_schedule", "exponential");
    c.set("warmup_steps", "0");
    c.set("max_steps", std::to_string(options.steps));
    c.set("max_epochs", "0");
    c.set("log_every_n_steps", "1");
    c.set("name", "lr-find: " + c.displayName());
    c.set("tags", "lr-find");
    c.validate();
    std::stop_source sweepStop;
    std::stop_callback forward(stop, [&] { sweepStop.request_stop(); });
    SweepSink sink(options, sweepStop);
    sinks.push_back(&sink);
    RunSession run(c, session, sinks);
    const RunFinishedEvent finished = run.run(sweepStop.get_token());
    LrFinderResult r = sink.result();
    r.runId = run.runId();
    r.stopped = stop.stop_requested();
    r.suggested = suggestLearningRate(r.lr, r.smoothed);
    if (r.suggested)
        r.method =
            "steepest descent of the smoothed loss against log lr, at lr " + text(*r.suggested) +
            " (" + std::to_string(r.lr.size()) + " steps from " + text(options.minLr) +
            (r.diverged ? ", diverged at lr " + text(r.lr.back()) : " to " + text(options.maxLr)) +
            ")";
    else
        r.method = finished.status == RunStatus::Failed && r.lr.empty()
                       ? "the sweep failed before its first step: " + finished.error
                       : "the loss never fell over the sweep (" + std::to_string(r.lr.size()) +
                             " steps): try a wider range or more steps";
    return r;
}

} // namespace tb

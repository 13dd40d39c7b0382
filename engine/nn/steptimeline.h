// The spans of profiled training steps on the compute stream. While a timeline is attached, an
// event is recorded after each layer's forward and backward (Graph) and after each of the
// trainer's own phases (the batch's copy, the loss, the optimizer); a span runs from the mark
// before it to its own. Events are only read once the device has finished them (spans()), so
// profiling adds no host sync inside the steps. Detached, it costs the graph one null check a
// layer.
#pragma once

#include "backend/backend.h"

#include <memory>
#include <string>
#include <vector>

namespace tb {

enum class SpanKind { Forward, Backward, Phase };
std::string toString(SpanKind kind); // "forward", "backward", "phase"

struct TimelineSpan {
    std::string name; // a layer's name, or the phase's: "h2d", "loss", "optimizer"
    SpanKind kind = SpanKind::Phase;
    int step = 0;         // 0-based among the profiled steps
    double startMs = 0.0; // from the first step's start
    double durationMs = 0.0;
};

class StepTimeline {
public:
    explicit StepTimeline(Backend& backend) : m_backend(backend) {}

    // A step's compute begins: the next mark's span starts here. Steps are numbered from 0.
    void beginStep();
    // Closes the span that began at the previous mark.
    void mark(const std::string& name, SpanKind kind);
    int steps() const { return m_steps; }

    // Every span, in order. Waits for the device to finish the marked work.
    std::vector<TimelineSpan> spans() const;

private:
    struct Mark {
        std::string name; // empty: a step's start, which closes no span
        SpanKind kind;
        int step;
        std::unique_ptr<StreamEvent> event;
    };
    Backend& m_backend;
    std::vector<Mark> m_marks;
    int m_steps = 0;
};

} // namespace tb

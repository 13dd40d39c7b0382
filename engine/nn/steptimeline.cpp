#include "nn/steptimeline.h"

#include "core/errors.h"

namespace tb {

std::string toString(SpanKind kind) {
    switch (kind) {
    case SpanKind::Forward:
        return "forward";
    case SpanKind::Backward:
        return "backward";
    case SpanKind::Phase:
        break;
    }
    return "phase";
}

void StepTimeline::beginStep() {
    m_marks.push_back({std::string(), SpanKind::Phase, m_steps++, m_backend.recordEvent()});
}

void StepTimeline::mark(const std::string& name, SpanKind kind) {
    if (m_marks.empty())
        throw Error("StepTimeline::mark before beginStep");
    m_marks.push_back({name, kind, m_steps - 1, m_backend.recordEvent()});
}

std::vector<TimelineSpan> StepTimeline::spans() const {
    std::vector<TimelineSpan> out;
    if (m_marks.empty())
        return out;
    m_marks.back().event->wait(); // one stream: every earlier event has completed too
    const StreamEvent& origin = *m_marks.front().event;
    for (std::size_t i = 1; i < m_marks.size(); ++i) {
        const Mark& m = m_marks[i];
        if (m.name.empty())
            continue;
        StreamEvent& from = *m_marks[i - 1].event;
        TimelineSpan s{m.name, m.kind, m.step, 0.0, 0.0};
        s.startMs = &from == &origin ? 0.0 : from.elapsedMs(origin);
        s.durationMs = m.event->elapsedMs(from);
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace tb

// Terminal progress for `train`: a live bar (epoch, step, loss, samples/s, ETA) on a terminal,
// plain lines otherwise, and a summary of each epoch; for a language model, tokens/s and the
// loss as perplexity and bits per character too.
#pragma once

#include "events/events.h"
#include "train/stepplan.h"
#include "train/tokenmetrics.h"

#include <cstdio>

namespace tb::cli {

class ProgressPrinter final : public EventSink {
public:
    // out: where to print (stderr when stdout carries JSON).
    explicit ProgressPrinter(std::FILE* out);
    void onEvent(const Event& event) override;

private:
    void printStep(const StepEvent& e);

    std::FILE* m_out;
    bool m_tty;
    int64_t m_totalSteps = 0;
    int64_t m_stepsPerEpoch = 0;
    int64_t m_startStep = 0;
    int64_t m_lastPrinted = 0;
    RemainingTime m_remaining;
    TokenMetrics m_tokens; // a language model's run: bits per character, tokens/s
};

} // namespace tb::cli

// ProgressPrinter.
#include "progress.h"

#include "core/textformat.h"

#include <unistd.h>

#include <string>

namespace tb::cli {

ProgressPrinter::ProgressPrinter(std::FILE* out) : m_out(out), m_tty(isatty(fileno(out)) != 0) {}

void ProgressPrinter::onEvent(const Event& event) {
    if (const auto* e = std::get_if<RunStartedEvent>(&event)) {
        if (e->totalSteps == 0)
            return; // announces a run that failed to start; RunFinished says why
        m_totalSteps = e->totalSteps;
        m_stepsPerEpoch = e->stepsPerEpoch;
        m_startStep = e->resumedFromStep;
        m_remaining.begin(e->totalSteps, e->resumedFromStep);
        m_tokens = tokenMetricsOf(e->config);
        std::fprintf(m_out, "run %s: %s on %s, %lld steps (%lld per epoch)%s\n", e->runId.c_str(),
                     e->name.c_str(), e->device.c_str(), static_cast<long long>(e->totalSteps),
                     static_cast<long long>(e->stepsPerEpoch),
                     e->resumedFromStep
                         ? (", resumed at step " + std::to_string(e->resumedFromStep)).c_str()
                         : "");
    } else if (const auto* s = std::get_if<StepEvent>(&event)) {
        printStep(*s);
    } else if (const auto* ep = std::get_if<EpochEvent>(&event)) {
        if (m_tty)
            std::fputc('\n', m_out);
        const std::string at = ep->partial ? " (max_steps: validated at step " +
                                                 std::to_string(ep->step) + ", inside the epoch)"
                                           : std::string();
        if (m_tokens.languageModel())
            std::fprintf(m_out,
                         "epoch %lld%s: train loss %.4f, val loss %.4f (%s), next-%s accuracy "
                         "%.2f%%, %.1f s, %.0f tokens/s\n",
                         static_cast<long long>(ep->epoch), at.c_str(), ep->trainLoss, ep->valLoss,
                         m_tokens.describeLoss(ep->valLoss).c_str(), m_tokens.unit.c_str(),
                         ep->valAcc * 100.0, ep->seconds, m_tokens.tokensPerSec(ep->samplesPerSec));
        else if (const auto& d = ep->validation.detection) // Ultralytics' columns
            std::fprintf(m_out,
                         "epoch %lld%s: train loss %.4f, val loss %.4f (box %.3f, cls %.3f, dfl "
                         "%.3f), P %.3f, R %.3f, mAP50 %.3f, mAP50-95 %.3f, %.1f s, %.0f "
                         "images/s\n",
                         static_cast<long long>(ep->epoch), at.c_str(), ep->trainLoss, ep->valLoss,
                         d->boxLoss, d->clsLoss, d->dflLoss, d->precision, d->recall, d->map50,
                         d->map5095, ep->seconds, ep->samplesPerSec);
        else if (const auto& seg = ep->validation.segmentation) // torchvision's figures
            std::fprintf(m_out,
                         "epoch %lld%s: train loss %.4f, train pixel acc %.2f%%, val loss %.4f, "
                         "pixel acc %.2f%%, mIoU %.2f%%, %.1f s, %.0f images/s\n",
                         static_cast<long long>(ep->epoch), at.c_str(), ep->trainLoss,
                         ep->trainAcc * 100.0, ep->valLoss, seg->pixelAccuracy * 100.0,
                         seg->meanIoU * 100.0, ep->seconds, ep->samplesPerSec);
        else
            std::fprintf(m_out,
                         "epoch %lld%s: train loss %.4f, train acc %.2f%%, val loss %.4f, val acc "
                         "%.2f%%, %.1f s, %.0f samples/s\n",
                         static_cast<long long>(ep->epoch), at.c_str(), ep->trainLoss,
                         ep->trainAcc * 100.0, ep->valLoss, ep->valAcc * 100.0, ep->seconds,
                         ep->samplesPerSec);
        if (!ep->sample.empty()) { // what the model writes now, each line indented
            std::string quoted = "  | ";
            for (const char c : ep->sample)
                quoted += c == '\n' ? std::string("\n  | ") : std::string(1, c);
            std::fprintf(m_out, "sample after epoch %lld:\n%s\n", static_cast<long long>(ep->epoch),
                         quoted.c_str());
        }
    } else if (const auto* l = std::get_if<LogEvent>(&event)) {
        if (l->level != LogLevel::Debug)
            std::fprintf(m_out, "%s%s\n", l->level >= LogLevel::Warning ? "warning: " : "",
                         l->message.c_str());
    } else if (const auto* a = std::get_if<AdviceEvent>(&event)) {
        std::fprintf(m_out, "advice: %s\n", a->message.c_str());
    } else if (const auto* f = std::get_if<RunFinishedEvent>(&event)) {
        if (m_tty)
            std::fputc('\n', m_out);
        // The error itself is printed once, by the command, as its exit message.
        std::fprintf(m_out, "run %s after %s\n", toString(f->status).c_str(),
                     formatDuration(f->summary.durationSec).c_str());
    }
    std::fflush(m_out);
}

void ProgressPrinter::printStep(const StepEvent& e) {
    const double eta = m_remaining.seconds(e.step);
    const double frac =
        m_totalSteps ? static_cast<double>(e.step) / static_cast<double>(m_totalSteps) : 0.0;
    // gradient_clip_val: the interval's largest gradient norm, and whether it was clipped.
    std::string notes = e.gradNorm > 0.0 ? formatString(" grad norm %.3g%s", e.gradNorm,
                                                        e.clippedSteps > 0 ? " (clipped)" : "")
                                         : std::string();
    if (e.skipped)
        notes += " (skipped: inf/NaN)";
    // A language model's speed in tokens, its loss also in bits per character.
    const bool tokens = m_tokens.languageModel();
    const double rate = tokens ? m_tokens.tokensPerSec(e.samplesPerSec) : e.samplesPerSec;
    const char* rateUnit = tokens ? "tokens/s" : "samples/s";
    if (tokens)
        notes =
            formatString(" (%.3f bits/%s)", bitsPerToken(e.loss), m_tokens.unit.c_str()) + notes;
    if (m_tty) {
        constexpr int kWidth = 24;
        const int filled = static_cast<int>(frac * kWidth);
        std::string bar(static_cast<std::size_t>(filled), '#');
        bar.resize(kWidth, '.');
        std::fprintf(m_out, "\repoch %lld [%s] step %lld/%lld loss %.4f %6.0f %s ETA %s%s  ",
                     static_cast<long long>(e.epoch), bar.c_str(), static_cast<long long>(e.step),
                     static_cast<long long>(m_totalSteps), e.loss, rate, rateUnit,
                     formatDuration(eta).c_str(), notes.c_str());
        return;
    }
    // Not a terminal: a line about every tenth of an epoch.
    const int64_t every = std::max<int64_t>(m_stepsPerEpoch / 10, 1);
    if (e.step - m_lastPrinted < every && e.step != m_totalSteps && !e.skipped)
        return;
    m_lastPrinted = e.step;
    std::fprintf(m_out, "epoch %lld step %lld/%lld loss %.4f %.0f %s ETA %s%s\n",
                 static_cast<long long>(e.epoch), static_cast<long long>(e.step),
                 static_cast<long long>(m_totalSteps), e.loss, rate, rateUnit,
                 formatDuration(eta).c_str(), notes.c_str());
}

} // namespace tb::cli

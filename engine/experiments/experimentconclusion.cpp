// The numbers behind a conclusion, and its wording.
#include "experiments/experimentconclusion.h"

#include "backend/cpu/cpuisa.h"
#include "core/textformat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace tb {

namespace {

double valueOf(const ArmRepeat& r, ExperimentMeasure m) {
    switch (m) {
    case ExperimentMeasure::Speed:
        return r.samplesPerSec;
    case ExperimentMeasure::Loss:
        return r.finalLoss;
    case ExperimentMeasure::Memory:
        return r.peakMemoryBytes;
    }
    return 0.0;
}

std::string number(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

// "812 +- 40 samples/s", "0.412 +- 0.010", "38.1 +- 0.2 MiB"
std::string figure(const Spread& s, ExperimentMeasure m) {
    switch (m) {
    case ExperimentMeasure::Speed:
        return formatCount(std::llround(s.mean)) + " +- " + formatCount(std::llround(s.stddev)) +
               " samples/s";
    case ExperimentMeasure::Loss:
        return number(s.mean, 3) + " +- " + number(s.stddev, 3);
    case ExperimentMeasure::Memory:
        return number(s.mean / (1 << 20), 1) + " +- " + number(s.stddev / (1 << 20), 1) + " MiB";
    }
    return {};
}

Spread spreadOf(const std::vector<double>& v) {
    Spread s;
    s.n = static_cast<int>(v.size());
    if (v.empty())
        return s;
    for (double x : v)
        s.mean += x / static_cast<double>(v.size());
    if (v.size() > 1) {
        double squares = 0.0;
        for (double x : v)
            squares += (x - s.mean) * (x - s.mean);
        s.stddev = std::sqrt(squares / static_cast<double>(v.size() - 1));
    }
    return s;
}

// The parts of a step a speed difference is explained by, with the words for each.
struct PartOfStep {
    double StepParts::*ms;
    const char* words;
};
constexpr PartOfStep kParts[] = {
    {&StepParts::dataWaitMs, "waiting for data"},
    {&StepParts::copyMs, "the copy to the device"},
    {&StepParts::forwardMs, "the forward pass"},
    {&StepParts::backwardMs, "the backward pass"},
    {&StepParts::optimizerMs, "the optimizer step"},
    {&StepParts::allReduceMs, "the exposed all-reduce"},
};

Spread partSpread(const ArmResult& arm, double StepParts::*ms) {
    std::vector<double> v;
    for (const ArmRepeat& r : arm.repeats)
        if (r.error.empty())
            v.push_back(r.parts.*ms);
    return spreadOf(v);
}

// Milliseconds as printed: one decimal below 100 ms, none above.
std::string millis(double ms) {
    return number(ms, ms < 100.0 ? 1 : 0);
}

bool trainedOnCpu(const ArmResult& arm) {
    for (const ArmRepeat& r : arm.repeats)
        if (r.error.empty() && r.device == "cpu")
            return true;
    return false;
}

// A part of the step whose time changed beyond its noise and its printed resolution.
struct PartChange {
    const PartOfStep* part;
    double from, to;
    std::string words() const {
        return std::string(part->words) + (to < from ? " fell" : " rose") + " from " +
               millis(from) + " to " + millis(to) + " ms per step";
    }
};

std::vector<PartChange> changedParts(const ArmResult& base, const ArmResult& arm) {
    std::vector<PartChange> out;
    for (const PartOfStep& part : kParts) {
        const Spread a = partSpread(base, part.ms), b = partSpread(arm, part.ms);
        if (measurablyDifferent(a, b) && millis(a.mean) != millis(b.mean))
            out.push_back({&part, a.mean, b.mean});
    }
    return out;
}

// ": the backward pass rose from 12.1 to 71.9 ms per step", for the part whose time changed
// most, or nothing when no part changed beyond its noise and its printed resolution.
std::string explanation(const ArmResult& base, const ArmResult& arm) {
    const PartChange* most = nullptr;
    const std::vector<PartChange> changes = changedParts(base, arm);
    for (const PartChange& c : changes)
        if (!most || std::abs(c.to - c.from) > std::abs(most->to - most->from))
            most = &c;
    return most ? ": " + most->words() : std::string();
}

// The part that fell most and the part that rose most between two arms (null where none did).
std::pair<std::optional<PartChange>, std::optional<PartChange>>
largestFallAndRise(const ArmResult& base, const ArmResult& arm) {
    std::optional<PartChange> fell, rose;
    for (const PartChange& c : changedParts(base, arm)) {
        std::optional<PartChange>& slot = c.to < c.from ? fell : rose;
        if (!slot || std::abs(c.to - c.from) > std::abs(slot->to - slot->from))
            slot = c;
    }
    return {fell, rose};
}

// For arms alike in speed whose steps still changed inside: what fell and what rose instead
// ("; yet waiting for data fell from 7.7 to 0.5 ms per step, and the forward pass rose from 4.1
// to 9.0 ms per step").
std::string tradeOff(const ArmResult& base, const ArmResult& arm) {
    const auto [fell, rose] = largestFallAndRise(base, arm);
    if (!fell || !rose)
        return {};
    return "; yet " + fell->words() + ", and " + rose->words();
}

// Whether a CPU arm waited less for data and computed longer by as much: its loader's workers
// took their cores from the compute.
bool waitTradedForCompute(const ExperimentPreset& preset, const ArmResult& base,
                          const ArmResult& arm) {
    if (preset.measure != ExperimentMeasure::Speed || !trainedOnCpu(arm) ||
        measurablyDifferent(armSpread(base, preset.measure), armSpread(arm, preset.measure)))
        return false;
    const auto [fell, rose] = largestFallAndRise(base, arm);
    return fell && rose && fell->part->ms == &StepParts::dataWaitMs;
}

// The precision the arm's repeats trained in (they share it).
std::string precisionOf(const ArmResult& arm) {
    for (const ArmRepeat& r : arm.repeats)
        if (r.error.empty())
            return r.precision;
    return {};
}

// Why a precision cannot be fast here: the CPU has no arithmetic in it, so every operation
// widens to f32 and back.
std::string emulationNote(const ArmResult& arm, const ConclusionFacts& facts) {
    if (!trainedOnCpu(arm))
        return {};
    const std::string precision = precisionOf(arm);
    const bool f16 = precision == "16-mixed", bf16 = precision == "bf16-mixed";
    if ((f16 && !facts.cpuF16Native) || (bf16 && !facts.cpuBf16Native))
        return arm.arm.label + " is emulated on this CPU (oneDNN ISA " +
               (facts.cpuIsa.empty() ? std::string("unknown") : facts.cpuIsa) + " has no " +
               (f16 ? "f16" : "bf16") +
               " arithmetic): every operation converts to f32 and back, so it cannot be faster "
               "here than precision=32; on a GPU's Tensor Cores it is.";
    return {};
}

// "; its training loss ended at 0.412 +- 0.010 against 0.409 +- 0.012: no measurable
// difference, so it learns alike" (for a measure asked about as well as the main one).
std::string alsoClause(ExperimentMeasure measure, const ArmResult& base, const ArmResult& arm) {
    const Spread a = armSpread(base, measure), b = armSpread(arm, measure);
    if (a.n == 0 || b.n == 0)
        return {};
    const std::string both = figure(b, measure) + " against " + figure(a, measure);
    const bool differs = measurablyDifferent(a, b);
    switch (measure) {
    case ExperimentMeasure::Loss:
        return "; its training loss ended at " + both +
               (differs ? std::string(b.mean < a.mean ? ": lower" : ": higher")
                        : ": no measurable difference, so it learns alike");
    case ExperimentMeasure::Memory:
        return "; it used " + both +
               (differs ? ": " + number(100.0 * b.mean / a.mean, 0) + "% of the memory"
                        : ": no measurable difference in memory");
    case ExperimentMeasure::Speed:
        return "; it trained at " + both +
               (differs ? std::string(b.mean > a.mean ? ": faster" : ": slower")
                        : ": no measurable difference in speed");
    }
    return {};
}

std::string percent(double share) {
    return number(100.0 * share, 0) + "%";
}

// One arm against the first: the sentence for it.
std::string compare(const ExperimentPreset& preset, const ArmResult& base, const ArmResult& arm) {
    const Spread a = armSpread(base, preset.measure), b = armSpread(arm, preset.measure);
    const std::string both = " (" + arm.arm.label + ": " + figure(b, preset.measure) + ", " +
                             base.arm.label + ": " + figure(a, preset.measure) + ")";
    std::string also;
    for (ExperimentMeasure m : preset.alsoMeasured)
        also += alsoClause(m, base, arm);
    if (!measurablyDifferent(a, b))
        return arm.arm.label + " against " + base.arm.label + ": no measurable difference" + both +
               (preset.measure == ExperimentMeasure::Speed ? tradeOff(base, arm) : "") + also + ".";
    std::string sentence;
    switch (preset.measure) {
    case ExperimentMeasure::Speed: {
        const double ratio = b.mean / a.mean;
        sentence = arm.arm.label + " trained " + number(ratio >= 1 ? ratio : 1 / ratio, 2) + "x " +
                   (ratio >= 1 ? "faster" : "slower") + " than " + base.arm.label + both +
                   explanation(base, arm);
        break;
    }
    case ExperimentMeasure::Loss:
        sentence = arm.arm.label + " ended at a " + (b.mean < a.mean ? "lower" : "higher") +
                   " training loss than " + base.arm.label + both;
        break;
    case ExperimentMeasure::Memory:
        sentence = arm.arm.label + " used " + percent(b.mean / a.mean) + " of the memory of " +
                   base.arm.label + both;
        break;
    }
    return sentence + also + ".";
}

} // namespace

Spread armSpread(const ArmResult& arm, ExperimentMeasure measure) {
    std::vector<double> v;
    for (const ArmRepeat& r : arm.repeats)
        if (r.error.empty())
            v.push_back(valueOf(r, measure));
    return spreadOf(v);
}

bool measurablyDifferent(const Spread& a, const Spread& b) {
    if (a.n < 2 || b.n < 2)
        return false;
    const double standardError = std::sqrt(a.stddev * a.stddev / a.n + b.stddev * b.stddev / b.n);
    return std::abs(a.mean - b.mean) > 2.0 * standardError;
}

ConclusionFacts conclusionFactsOfThisMachine() {
    const CpuLowPrecisionSupport cpu = cpuLowPrecisionSupport();
    return {cpu.isa, cpu.f16Native, cpu.bf16Native,
            static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))};
}

std::string concludeExperiment(const ExperimentPreset& preset, const std::vector<ArmResult>& arms,
                               const ConclusionFacts& facts) {
    std::string out;
    const auto add = [&](const std::string& sentence) {
        out += (out.empty() ? "" : " ") + sentence;
    };
    for (const ArmResult& arm : arms)
        for (const ArmRepeat& r : arm.repeats)
            if (!r.error.empty()) {
                add(arm.arm.label + " could not run here: " + r.error + ".");
                break;
            }
    bool onGpu = false;
    for (const ArmResult& arm : arms)
        for (const ArmRepeat& r : arm.repeats)
            onGpu = onGpu || (r.error.empty() && r.device.rfind("cuda", 0) == 0);
    if (preset.needsGpu && !onGpu)
        add("This knob acts only when a GPU trains (it concerns copies to the GPU or the GPU "
            "itself), and these runs trained on the CPU, so no difference is expected here.");
    if (arms.empty() || armSpread(arms.front(), preset.measure).n == 0)
        return out.empty() ? "Nothing was measured." : out;
    for (std::size_t i = 1; i < arms.size(); ++i)
        if (armSpread(arms[i], preset.measure).n > 0)
            add(compare(preset, arms.front(), arms[i]));
    for (std::size_t i = 1; i < arms.size(); ++i)
        if (waitTradedForCompute(preset, arms.front(), arms[i])) {
            add("On the CPU the loader's workers decode on the cores the model computes on (" +
                std::to_string(facts.cpuThreads) +
                " here), so what they take off the wait for data, the compute gives back; with "
                "cores to spare, or with a GPU computing, the wait is what is saved.");
            break;
        }
    for (const ArmResult& arm : arms) // why a setting could not act as it would on a GPU
        if (const std::string note = emulationNote(arm, facts); !note.empty())
            add(note);
    return out;
}

} // namespace tb

// The numbers behind a conclusion, and its wording.
#include "experiments/experimentconclusion.h"

#include "core/textformat.h"

#include <cmath>
#include <cstdio>

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

Spread dataWaitSpread(const ArmResult& arm) {
    std::vector<double> v;
    for (const ArmRepeat& r : arm.repeats)
        if (r.error.empty())
            v.push_back(r.dataWaitShare);
    return spreadOf(v);
}

std::string percent(double share) {
    return number(100.0 * share, 0) + "%";
}

// One arm against the first: the sentence for it.
std::string compare(const ExperimentPreset& preset, const ArmResult& base, const ArmResult& arm) {
    const Spread a = armSpread(base, preset.measure), b = armSpread(arm, preset.measure);
    const std::string both = " (" + arm.arm.label + ": " + figure(b, preset.measure) + ", " +
                             base.arm.label + ": " + figure(a, preset.measure) + ")";
    if (!measurablyDifferent(a, b))
        return arm.arm.label + " against " + base.arm.label + ": no measurable difference" + both +
               ".";
    std::string sentence;
    switch (preset.measure) {
    case ExperimentMeasure::Speed: {
        const double ratio = b.mean / a.mean;
        sentence = arm.arm.label + " trained " + number(ratio >= 1 ? ratio : 1 / ratio, 2) + "x " +
                   (ratio >= 1 ? "faster" : "slower") + " than " + base.arm.label + both;
        const Spread wa = dataWaitSpread(base), wb = dataWaitSpread(arm);
        if (measurablyDifferent(wa, wb))
            sentence += ": data wait " + std::string(wb.mean < wa.mean ? "fell" : "rose") +
                        " from " + percent(wa.mean) + " to " + percent(wb.mean) + " of each step";
        break;
    }
    case ExperimentMeasure::Loss:
        sentence = arm.arm.label + " ended at a " + (b.mean < a.mean ? "lower" : "higher") +
                   " training loss than " + base.arm.label + both;
        break;
    case ExperimentMeasure::Memory:
        sentence = arm.arm.label + " used " + number(100.0 * b.mean / a.mean, 0) +
                   "% of the memory of " + base.arm.label + both;
        break;
    }
    return sentence + ".";
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

std::string concludeExperiment(const ExperimentPreset& preset, const std::vector<ArmResult>& arms) {
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
    return out;
}

} // namespace tb

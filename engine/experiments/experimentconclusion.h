// What an experiment's arms measured, and the conclusion drawn from it: never more than was
// measured. A difference is claimed only when it stands out of the spread of the repeats;
// otherwise the conclusion says there was no measurable difference and gives both figures.
#pragma once

#include "experiments/experimentpreset.h"

#include <optional>
#include <string>
#include <vector>

namespace tb {

// Where a step's time went, in mean milliseconds per optimizer step (the recorded breakdown).
struct StepParts {
    double stepMs = 0.0;
    double dataWaitMs = 0.0;
    double copyMs = 0.0; // host-to-device, what compute waited for of it
    double forwardMs = 0.0;
    double backwardMs = 0.0;
    double optimizerMs = 0.0;
    double allReduceMs = 0.0; // exposed, in a data-parallel job
};

// One repeat of one arm: one short run.
struct ArmRepeat {
    std::string runId;
    std::string device;         // where it trained ("cpu", "cuda:0")
    std::string precision;      // its precision key ("32", "16-mixed", "bf16-mixed")
    double samplesPerSec = 0.0; // over the logged steps after the first tenth (warm-up)
    StepParts parts;            // over the same steps
    double finalLoss = 0.0;     // mean training loss over the last tenth of the steps
    double peakMemoryBytes = 0.0;
    std::string error; // the run failed: why (the other figures mean nothing then)

    // The share of a step spent waiting for data, 0-1.
    double dataWaitShare() const {
        return parts.stepMs > 0.0 ? parts.dataWaitMs / parts.stepMs : 0.0;
    }
};

struct ArmResult {
    ExperimentArm arm;
    std::vector<ArmRepeat> repeats;
};

// Mean and sample standard deviation of the repeats that ran, for the preset's measure.
struct Spread {
    double mean = 0.0;
    double stddev = 0.0;
    int n = 0;
};
Spread armSpread(const ArmResult& arm, ExperimentMeasure measure);

// Whether two arms differ by more than their noise: the difference of the means against twice
// its standard error (Welch; about 95% when the repeats are normal). With one repeat each there
// is no spread, and no difference is claimed.
bool measurablyDifferent(const Spread& a, const Spread& b);

// What the machine can do that decides whether a knob acts at all.
struct ConclusionFacts {
    std::string cpuIsa; // oneDNN's ("avx2")
    bool cpuF16Native = true;
    bool cpuBf16Native = true;
    int cpuThreads = 1; // hardware threads, which the loader's workers share with the compute
};
ConclusionFacts conclusionFactsOfThisMachine();

// The conclusion in a few sentences, comparing each arm with the first, e.g.
// "num_workers=2 trained 2.50x faster than num_workers=0 (...): waiting for data fell from 7.6
// to 0.4 ms per step." A speed difference is explained by the part of the step that changed
// most (from the recorded breakdown); a part is said to rise or fall only when it did beyond
// the repeats' noise and by more than its printed resolution. The preset's further measures
// (`also`) are answered too (accumulation: memory, and whether it learns alike), and a setting
// that is emulated or cannot act on this machine is named as the reason. Arms alike in speed
// whose steps changed inside say what fell and what rose (fewer waits for data, paid for in
// compute on cores the workers share).
std::string concludeExperiment(const ExperimentPreset& preset, const std::vector<ArmResult>& arms,
                               const ConclusionFacts& facts = conclusionFactsOfThisMachine());

} // namespace tb

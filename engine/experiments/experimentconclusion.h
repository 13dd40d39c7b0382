// What an experiment's arms measured, and the conclusion drawn from it: never more than was
// measured. A difference is claimed only when it stands out of the spread of the repeats;
// otherwise the conclusion says there was no measurable difference and gives both figures.
#pragma once

#include "experiments/experimentpreset.h"

#include <optional>
#include <string>
#include <vector>

namespace tb {

// One repeat of one arm: one short run.
struct ArmRepeat {
    std::string runId;
    std::string device;         // where it trained ("cpu", "cuda:0")
    double samplesPerSec = 0.0; // over the logged steps after the first tenth (warm-up)
    double dataWaitShare = 0.0; // mean share of a step spent waiting for data, 0-1
    double finalLoss = 0.0;     // mean training loss over the last tenth of the steps
    double peakMemoryBytes = 0.0;
    std::string error; // the run failed: why (the other figures mean nothing then)
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

// The conclusion in one or two sentences, comparing each arm with the first, e.g.
// "num_workers=2 trained 2.7x faster than num_workers=0 (2,210 +- 40 against 815 +- 31
// samples/s): data wait fell from 61% to 3% of each step."
std::string concludeExperiment(const ExperimentPreset& preset, const std::vector<ArmResult>& arms);

} // namespace tb

// Two profiles side by side: what changed between them, row by row (a layer's pass or a phase
// of the step) and by what bounds the rows. The question it answers is the one a student asks
// after switching precision from 32 to bf16-mixed, or the batch from 32 to 256: which layers
// got faster, which did not, and did their bound change. What the Profile tab's comparison and
// `trainbench-cli runs profile A B` both show.
#pragma once

#include "events/profilereport.h"

#include <string>
#include <vector>

namespace tb {

struct ProfileRowChange {
    std::string name, pass, type;
    bool inA = false, inB = false; // a row only one profile has (another model) is kept
    double msA = 0.0, msB = 0.0;   // per step
    Bound boundA = Bound::Unknown, boundB = Bound::Unknown;
    double roofFractionA = 0.0, roofFractionB = 0.0;
    // msB / msA: below 1 is faster in B; 0 when either is missing.
    double ratio() const { return inA && inB && msA > 0.0 ? msB / msA : 0.0; }
};

// The time of each bound in each profile, per step.
struct BoundShare {
    Bound bound = Bound::Unknown;
    double msA = 0.0, msB = 0.0;
};

struct ProfileComparison {
    ProfileReport a, b;
    std::vector<ProfileRowChange> rows; // A's order, then rows only B has
    std::vector<BoundShare> bounds;     // compute, memory, overhead
};

ProfileComparison compareProfiles(const ProfileReport& a, const ProfileReport& b);

// What changed, for people: the step's time and its ratio, what differs in the set-up
// (precision, batch, device, model), the time per bound, the rows that gained or lost most,
// and rows whose bound changed.
std::vector<std::string> comparisonSummary(const ProfileComparison& c);

// The comparison as a table for a terminal: the summary, then one row per layer and pass.
std::string formatProfileComparison(const ProfileComparison& c);

} // namespace tb

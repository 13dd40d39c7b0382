// Run ids: the name of a run in the run store, its checkpoint folder and the CLI.
#pragma once

#include <string>

namespace tb {

// A new run id that sorts by start time: UTC date and time, then 48 random bits from the
// operating system's generator, "20261130-093012-3f2a9c1e07b4". Ids made in the same second
// (a sweep) differ in the random part; two of a million runs started in one second share an id
// with a probability under 2e-3, and the run store refuses a duplicate rather than merging.
std::string makeRunId();

} // namespace tb

// What the benchmarks under tests/bench report besides times: percentiles and the process's
// memory as /proc/self/status says it.
#pragma once

#include <vector>

namespace tb::test {

// The p-th percentile (0-1) of `v`, nearest rank; 0 for none.
double percentile(std::vector<double> v, double p);
// VmRSS:, VmHWM: (or any kB field) of /proc/self/status in MiB; 0 where it cannot be read.
double procStatusMiB(const char* field);

} // namespace tb::test

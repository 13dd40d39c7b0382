// `trainbench-cli runs importance`: which config keys mattered to a metric across runs (a
// sweep's, by tag, or any listed): correlation and random-forest permutation importance.
#pragma once

#include "args.h"

namespace tb {
class RunStore;
}

namespace tb::cli {

// `runs importance [ID...] [--tag T] --metric M [--keys K,K] [--seed N] [--json]`.
int showImportance(RunStore& store, const Args& args);

} // namespace tb::cli

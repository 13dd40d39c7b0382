// `trainbench-cli runs profile`: a stored run's layer profile, or two profiles side by side
// (two runs, or two profiles of one run: `profile --from RUN --set precision=bf16-mixed` keeps
// a second one with it).
#pragma once

#include "args.h"

namespace tb {
class RunStore;
}

namespace tb::cli {

// `runs profile ID[@N] [ID[@N]] [--json]`: N counts a run's profiles from 1, oldest first; the
// newest without it.
int showProfiles(RunStore& store, const Args& args);

} // namespace tb::cli

// Turns the error that failed a run into a RunFailure: its kind, what it names, and for out of
// memory the config change that should make the run fit.
#pragma once

#include "events/events.h"
#include "train/runconfig.h"

#include <exception>

namespace tb {

// Classifies `error`, thrown while training with `config`. Never throws.
RunFailure describeFailure(const std::exception& error, const RunConfig& config);

} // namespace tb

// --config FILE and --set KEY=VALUE, as `train` and `experiment run` take them.
#pragma once

#include "args.h"

namespace tb {
class RunConfig;
}

namespace tb::cli {

// Applies --config (a file or a pipe) and then each --set to `config`, then its cross-field
// checks. Throws ConfigError naming the key, or --config / --set for a malformed argument.
void applyConfigArgs(const Args& args, RunConfig& config);

} // namespace tb::cli

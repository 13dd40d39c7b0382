// --config FILE and --set KEY=VALUE, as `train` and `experiment run` take them.
#pragma once

#include "args.h"

namespace tb {
class RunConfig;
}

namespace tb::cli {

// Applies --config (a file or a pipe; unless !withConfigFile) and then each --set to `config`,
// and validates it.
// Throws ConfigError naming the option, file or key.
void applyConfigArgs(const Args& args, RunConfig& config, bool withConfigFile = true);

} // namespace tb::cli

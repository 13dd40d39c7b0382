// The config keys as `train --help` lists them, printed from the config schema.
#pragma once

#include <cstdio>

namespace tb::cli {

// By group: key, type (or choices), default, range, help, and when the key applies.
void printConfigKeys(std::FILE* out);

} // namespace tb::cli

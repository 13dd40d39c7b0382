// The config keys as `train --help`, `config-keys`, the man page and the README list them,
// written from the config schema.
#pragma once

#include "train/runconfig.h"

#include <cstdio>
#include <string>

namespace tb::cli {

// "int 1..65536", "float (0.0, 100.0]", "sgd|adamw", "bool".
std::string configTypeText(const ConfigField& f);
// A default as a person types it: 0.1, true, "" for an empty text.
std::string configDefaultText(const ConfigField& f);
// The help, the choices when the type column does not show them, and when the key applies.
std::string configMeaning(const ConfigField& f);

// By group: key, type (or choices), default, range, help, and when the key applies.
void printConfigKeys(std::FILE* out);
// The same as Markdown tables, one per group (the README's section).
void printConfigKeysMarkdown(std::FILE* out);

} // namespace tb::cli

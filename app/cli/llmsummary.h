// `trainbench-cli summary --params N | --preset NAME`: what a transformer language model needs
// in GPU memory for inference or training (train/llmmemory.h), for sizes this machine will never
// hold, and which common GPUs it fits.
#pragma once

#include "args.h"

namespace tb::cli {

// Whether the arguments ask for the language-model calculator (--params or --preset).
bool wantsLlmMemory(const Args& args);
int printLlmMemory(const Args& args);

} // namespace tb::cli

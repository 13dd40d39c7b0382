// The small synthetic run most trainer, precision and UI tests start from: the "shapes"
// dataset at 16x16 (330 samples, so an epoch's last batch is short), batch 32, two epochs,
// every step logged, CPU, two threads. Tests set what they vary on top.
#pragma once

#include "train/runconfig.h"

#include <string>

namespace tb::test {

RunConfig shapesRunConfig(const std::string& checkpointDir,
                          const std::string& model = "fmnist-cnn");

} // namespace tb::test

// Shared by the window's tests: a tiny synthetic run that trains in well under a second.
#pragma once

#include "support/runconfigs.h"

#include <QString>

namespace tb::test {

// 3-class "shapes" images (16x16), the small CNN, CPU, two epochs of 11 steps each.
RunConfig tinyRunConfig(const QString& checkpointDir, int64_t epochs = 2);

// A batch no machine holds (an MLP with 4M hidden units at batch 65536: about 4 TiB): the run
// fails as out of memory before anything is allocated.
RunConfig outOfMemoryRunConfig(const QString& checkpointDir);

} // namespace tb::test

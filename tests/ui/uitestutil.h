// Shared by the window's tests: a tiny synthetic run that trains in well under a second.
#pragma once

#include "support/runconfigs.h"

#include <QString>

namespace tb::test {

// 3-class "shapes" images (16x16), the small CNN, CPU, two epochs of 11 steps each.
inline RunConfig tinyRunConfig(const QString& checkpointDir, int64_t epochs = 2) {
    RunConfig c = shapesRunConfig(checkpointDir.toStdString());
    c.set("max_epochs", std::to_string(epochs));
    c.set("num_workers", "1");
    return c;
}

// A batch no machine holds (an MLP with 4M hidden units at batch 65536: about 4 TiB): the run
// fails as out of memory before anything is allocated.
inline RunConfig outOfMemoryRunConfig(const QString& checkpointDir) {
    RunConfig c = tinyRunConfig(checkpointDir, 1);
    c.set("dataset", "spirals");
    c.set("data.synthetic_samples", "65536");
    c.set("model", "mlp");
    c.set("model.hidden", "4194304");
    c.set("batch_size", "65536");
    return c;
}

} // namespace tb::test

// Shared by the window's tests: a tiny synthetic run that trains in well under a second.
#pragma once

#include "train/runconfig.h"

#include <QString>

namespace tb::test {

// 3-class "shapes" images (16x16), the small CNN, CPU, two epochs of 11 steps each.
inline RunConfig tinyRunConfig(const QString& checkpointDir, int64_t epochs = 2) {
    RunConfig c;
    c.set("dataset", "shapes");
    c.set("data.image_size", "16");
    c.set("data.synthetic_samples", "330");
    c.set("model", "fmnist-cnn");
    c.set("batch_size", "32");
    c.set("max_epochs", std::to_string(epochs));
    c.set("log_every_n_steps", "1");
    c.set("threads", "2");
    c.set("num_workers", "1");
    c.set("device", "cpu");
    c.set("checkpoint_dir", checkpointDir.toStdString());
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

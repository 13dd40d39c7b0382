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

} // namespace tb::test

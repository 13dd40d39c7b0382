#include "support/runconfigs.h"

namespace tb::test {

RunConfig shapesRunConfig(const std::string& checkpointDir, const std::string& model) {
    RunConfig c;
    c.set("dataset", "shapes");
    c.set("data.image_size", "16");
    c.set("data.synthetic_samples", "330");
    c.set("model", model);
    c.set("batch_size", "32");
    c.set("max_epochs", "2");
    c.set("log_every_n_steps", "1");
    c.set("threads", "2");
    c.set("num_workers", "0");
    c.set("device", "cpu");
    c.set("checkpoint_dir", checkpointDir);
    return c;
}

} // namespace tb::test

// The window's tests' tiny runs.
#include "uitestutil.h"

namespace tb::test {

RunConfig tinyRunConfig(const QString& checkpointDir, int64_t epochs) {
    RunConfig c = shapesRunConfig(checkpointDir.toStdString());
    c.set("max_epochs", std::to_string(epochs));
    c.set("num_workers", "1");
    return c;
}

RunConfig outOfMemoryRunConfig(const QString& checkpointDir) {
    RunConfig c = tinyRunConfig(checkpointDir, 1);
    c.set("dataset", "spirals");
    c.set("data.synthetic_samples", "65536");
    c.set("model", "mlp");
    c.set("model.hidden", "4194304");
    c.set("batch_size", "65536");
    return c;
}

} // namespace tb::test

// Recorded runs written straight into a run store, for the Runs view's tests, its screenshots
// and its benchmark: a run of known figures (loss 2 * scale / step, validation accuracy per
// epoch), as the recorder would have written it.
#pragma once

#include "store/runstore.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tb::test {

struct StoredRun {
    std::string id;
    std::string name;
    std::string model = "fmnist-cnn";
    std::string dataset = "fashion-mnist";
    nlohmann::json config = nlohmann::json::object(); // merged over a default config
    int64_t steps = 20;                               // logged steps, one per optimizer step
    int64_t stepsPerEpoch = 10;                       // epochs at every tenth step
    double lossScale = 1.0;                           // loss at step i: 2 * lossScale / i
    double lossNoise = 0.0;     // times 1 + lossNoise * u, u in [-1, 1) seeded by id and step
    std::vector<double> valAcc; // per epoch (0-1); default rises towards 0.9
    RunStatus status = RunStatus::Completed;
    double startedAt = 1.76e9;
    std::vector<std::string> tags;
    std::string checkpoint;    // the last checkpoint's path, if any
    bool withTelemetry = true; // a CPU/GPU reading every fifth step
};

// A run of the defaults above under this id and name.
inline StoredRun storedRun(std::string id, std::string name) {
    StoredRun r;
    r.id = std::move(id);
    r.name = std::move(name);
    return r;
}

// Writes the run (start, steps, epochs, telemetry, tags and, unless running, its end) in one
// transaction. Throws StoreError.
void writeStoredRun(RunStore& store, const StoredRun& run);

} // namespace tb::test

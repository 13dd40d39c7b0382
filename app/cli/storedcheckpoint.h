// A command's RUN|CHECKPOINT argument: a checkpoint file, or a run in the store (its newest
// checkpoint), for `profile --from` and `generate`.
#pragma once

#include <string>

namespace tb::cli {

struct StoredCheckpoint {
    std::string checkpoint;
    std::string runId; // empty: a file of a run the store does not have
};

// Throws ConfigError(option) for a run without a checkpoint, or a run id without a store
// (databasePath empty: --no-db); RunStore's error for an unknown id.
StoredCheckpoint findCheckpoint(const std::string& runOrFile, const std::string& databasePath,
                                const std::string& option);

} // namespace tb::cli

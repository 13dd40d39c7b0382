// findCheckpoint.
#include "storedcheckpoint.h"

#include "core/errors.h"
#include "store/runstore.h"
#include "train/checkpointer.h"

#include <filesystem>

namespace tb::cli {

StoredCheckpoint findCheckpoint(const std::string& runOrFile, const std::string& databasePath,
                                const std::string& option) {
    if (std::filesystem::is_regular_file(runOrFile)) {
        StoredCheckpoint found{runOrFile, Checkpointer::runIdOf(runOrFile)};
        if (!databasePath.empty() && !RunStore(databasePath).contains(found.runId))
            found.runId.clear();
        return found;
    }
    if (databasePath.empty())
        throw ConfigError(option, "'" + runOrFile +
                                      "' is not a checkpoint file (a run id needs the run store: "
                                      "leave out --no-db)");
    const RunRecord record = RunStore(databasePath).getRun(runOrFile); // names an unknown id
    if (record.checkpoint.empty() || !std::filesystem::is_regular_file(record.checkpoint))
        throw ConfigError(option,
                          "run " + record.id + " has no checkpoint" +
                              (record.checkpoint.empty() ? std::string()
                                                         : " (" + record.checkpoint + " is gone)"));
    return {record.checkpoint, record.id};
}

} // namespace tb::cli

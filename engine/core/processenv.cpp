// applyComputeEnvironment: set OMP_WAIT_POLICY and re-exec before libgomp has read it... which
// it already has by main(), hence the re-exec of /proc/self/exe.
#include "core/processenv.h"

#include <cstdlib>
#include <unistd.h>

namespace tb {

void applyComputeEnvironment(char** argv) {
    if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("TB_NO_REEXEC") != nullptr)
        return;
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    setenv("TB_NO_REEXEC", "1", 1); // never loop, whatever happens below
    execv("/proc/self/exe", argv);
    // execv only returns on failure: carry on with the default policy.
}

} // namespace tb

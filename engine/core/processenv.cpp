// applyComputeEnvironment: libgomp has read its environment by the time main() runs, so the
// setting takes effect through one re-exec of /proc/self/exe.
#include "core/processenv.h"

#include <cstdlib>
#include <unistd.h>

namespace tb {

void applyComputeEnvironment(char** argv) {
    if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT") ||
        std::getenv("TB_NO_REEXEC"))
        return;
    setenv("GOMP_SPINCOUNT", "10000", 1);
    setenv("TB_NO_REEXEC", "1", 1); // never loop, whatever happens below
    execv("/proc/self/exe", argv);
    // execv only returns on failure: carry on with the default policy.
}

} // namespace tb

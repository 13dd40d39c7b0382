// dataDirectory() after the XDG base directory spec.
#include "core/datadirectory.h"

#include <cstdlib>
#include <filesystem>

#include <pwd.h>
#include <unistd.h>

namespace tb {

std::string dataDirectory() {
    std::filesystem::path base;
    // The XDG spec says to ignore relative values.
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg == '/') {
        base = xdg;
    } else {
        const char* home = std::getenv("HOME");
        if (!home || !*home) {
            const passwd* pw = getpwuid(getuid());
            home = pw ? pw->pw_dir : "/tmp";
        }
        base = std::filesystem::path(home) / ".local" / "share";
    }
    return (base / "TrainBench").string();
}

} // namespace tb

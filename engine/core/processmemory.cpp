// Reading kB fields of /proc files.
#include "core/processmemory.h"

#include <fstream>
#include <sstream>

namespace tb {

std::optional<uint64_t> procKibField(const std::string& file, const std::string& key) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, key.size(), key) != 0 || line.size() <= key.size() ||
            line[key.size()] != ':')
            continue;
        std::istringstream fields(line.substr(key.size() + 1));
        uint64_t kib = 0;
        if (fields >> kib)
            return kib * 1024;
        return std::nullopt;
    }
    return std::nullopt;
}

std::optional<uint64_t> processPeakRssBytes() {
    return procKibField("/proc/self/status", "VmHWM");
}

bool resetProcessPeakRss() {
    std::ofstream out("/proc/self/clear_refs");
    out << "5";
    out.flush();
    return static_cast<bool>(out);
}

} // namespace tb

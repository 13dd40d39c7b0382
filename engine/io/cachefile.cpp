// replaceCacheFile: temporary file named by process and thread, then rename.
#include "io/cachefile.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include <unistd.h>

namespace tb {

namespace fs = std::filesystem;

bool replaceCacheFile(const std::string& path, const std::string& text) noexcept {
    try {
        std::error_code ec;
        fs::create_directories(fs::path(path).parent_path(), ec);
        const auto tid = std::hash<std::thread::id>{}(std::this_thread::get_id());
        const std::string tmp =
            path + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(tid);
        {
            std::ofstream out(tmp, std::ios::trunc);
            out << text;
            if (!out) {
                fs::remove(tmp, ec);
                return false;
            }
        }
        fs::rename(tmp, path, ec);
        if (ec) {
            fs::remove(tmp, ec);
            return false;
        }
        return true;
    } catch (...) {
        return false;
    }
}

} // namespace tb

// enginelocation: dladdr on a function of this library.
#include "core/enginelocation.h"

#include <algorithm>

#include <dlfcn.h>

namespace tb {

std::filesystem::path engineLibraryDir() {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<const void*>(&engineLibraryDir), &info) || !info.dli_fname)
        return {};
    std::error_code ec;
    const std::filesystem::path lib = std::filesystem::canonical(info.dli_fname, ec);
    return ec ? std::filesystem::path() : lib.parent_path();
}

bool engineInBuildTree() {
    std::error_code ec;
    const std::filesystem::path build = std::filesystem::canonical(TB_BUILD_DIR, ec);
    if (ec)
        return false;
    const std::filesystem::path dir = engineLibraryDir();
    const auto [b, d] = std::mismatch(build.begin(), build.end(), dir.begin(), dir.end());
    return !dir.empty() && b == build.end();
}

} // namespace tb

// Best-effort writes of small cache files (the CPU peak, dataset statistics): the text goes to a
// private temporary file renamed over the target, so a concurrent reader sees the old file or
// the new one, never half of one. A cache that cannot be written is not an error.
#pragma once

#include <string>

namespace tb {

// Creates the parent folder if needed; false when nothing was written.
bool replaceCacheFile(const std::string& path, const std::string& text) noexcept;

} // namespace tb

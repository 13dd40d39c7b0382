// Where this engine library is loaded from: an installed copy (lib/trainbench) or the build
// tree's. Files that ship with it (the CUDA plugin, trainbench-cli) are looked for beside it; a
// build tree's paths are looked at only by the build tree's engine, never by an installed one.
#pragma once

#include <filesystem>

namespace tb {

// The folder of libtrainbench_engine.so; empty when the loader cannot say.
std::filesystem::path engineLibraryDir();
// Whether that folder lies in the build tree this engine was built in.
bool engineInBuildTree();

// Where the build tree's CUDA plugin and trainbench-cli are; empty for an installed engine, which
// never looks into the tree it was built in.
std::filesystem::path buildTreePluginDir();
std::filesystem::path buildTreeCliPath();
// Where the packages install them (CMAKE_INSTALL_PREFIX at configure time).
std::filesystem::path installedPluginDir();
std::filesystem::path installedCliPath();

} // namespace tb

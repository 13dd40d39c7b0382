// Where the programs and files a test runs are: the build tree's trainbench-cli and window, the
// fake NVML library, files of the source tree. Only buildtree.cpp is compiled with these paths,
// so every other test object compiles the same in any checkout (and a compiler cache shares it
// between checkouts).
#pragma once

#include <QString>

namespace tb::test {

// build/<preset>/app/cli/trainbench-cli
QString cliPath();
// build/<preset>/app/gui/trainbench
QString guiPath();
// tests/telemetry's stand-in for libnvidia-ml.so.1
QString fakeNvmlPath();
// The file at `relative` (e.g. "README.md", "tests/torch") under the source tree.
QString sourcePath(const QString& relative);

} // namespace tb::test

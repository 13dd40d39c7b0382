// The build and source paths of this checkout, set by tests/CMakeLists.txt on this file alone.
#include "support/buildtree.h"

namespace tb::test {

QString cliPath() {
    return QStringLiteral(TB_CLI_PATH);
}

QString guiPath() {
    return QStringLiteral(TB_GUI_PATH);
}

QString fakeNvmlPath() {
    return QStringLiteral(TB_FAKE_NVML);
}

QString sourcePath(const QString& relative) {
    return QStringLiteral(TB_SOURCE_DIR "/") + relative;
}

} // namespace tb::test

// A dark palette for screenshots of the window and its charts in dark mode.
#pragma once

#include <QPalette>

namespace tb::test {

QPalette darkPalette();

} // namespace tb::test

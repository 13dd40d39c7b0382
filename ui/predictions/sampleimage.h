// A sample's values as a picture: one channel as grey, three as RGB, stretched from the
// sample's own minimum to its maximum (inputs arrive normalised, in no fixed range).
#pragma once

#include <QImage>

#include <cstdint>
#include <vector>

namespace tb::ui {

// A null image for shapes that are not {channels, height, width} with 1 or 3 channels.
QImage sampleImage(const std::vector<int64_t>& shape, const std::vector<float>& values);

} // namespace tb::ui

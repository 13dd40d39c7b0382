// The bilinear tap every image resampler of the data module shares: the four 8-bit RGB pixels
// around a source point, neighbours beyond the image's edge repeating the edge (as a resize does).
#pragma once

#include "data/imagecodec.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace tb {

// `in` at (sx, sy) in pixel-centre coordinates (pixel i's centre at i), into rgb[3].
inline void bilinearTap(const RgbImage& in, double sx, double sy, double rgb[3]) {
    const int x0 = static_cast<int>(std::floor(sx)), y0 = static_cast<int>(std::floor(sy));
    const double fx = sx - x0, fy = sy - y0;
    auto at = [&](int x, int y, int ch) -> double {
        x = std::clamp(x, 0, in.width - 1);
        y = std::clamp(y, 0, in.height - 1);
        return in.pixels[(static_cast<std::size_t>(y) * static_cast<std::size_t>(in.width) +
                          static_cast<std::size_t>(x)) *
                             3 +
                         static_cast<std::size_t>(ch)];
    };
    for (int ch = 0; ch < 3; ++ch) {
        const double top = at(x0, y0, ch) + fx * (at(x0 + 1, y0, ch) - at(x0, y0, ch));
        const double bottom =
            at(x0, y0 + 1, ch) + fx * (at(x0 + 1, y0 + 1, ch) - at(x0, y0 + 1, ch));
        rgb[ch] = top + fy * (bottom - top);
    }
}

} // namespace tb

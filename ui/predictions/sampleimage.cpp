#include "predictions/sampleimage.h"

#include <algorithm>

namespace tb::ui {

QImage sampleImage(const std::vector<int64_t>& shape, const std::vector<float>& values) {
    if (shape.size() != 3 || (shape[0] != 1 && shape[0] != 3))
        return {};
    const int64_t channels = shape[0], h = shape[1], w = shape[2];
    if (h <= 0 || w <= 0 || static_cast<int64_t>(values.size()) != channels * h * w)
        return {};
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    const float range = *hi - *lo > 1e-12f ? *hi - *lo : 1.0f;
    const auto level = [&](int64_t c, int64_t y, int64_t x) {
        const float v = (values[static_cast<std::size_t>((c * h + y) * w + x)] - *lo) / range;
        return static_cast<int>(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f);
    };
    QImage image(static_cast<int>(w), static_cast<int>(h), QImage::Format_RGB32);
    for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x) {
            const int r = level(0, y, x);
            const int g = channels == 3 ? level(1, y, x) : r;
            const int b = channels == 3 ? level(2, y, x) : r;
            image.setPixel(static_cast<int>(x), static_cast<int>(y), qRgb(r, g, b));
        }
    return image;
}

} // namespace tb::ui

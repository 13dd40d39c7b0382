// What every detection source shares: its boxes counted and turned into pixels.
#include "data/detectionsource.h"

#include <algorithm>

namespace tb {

int64_t maxBoxesPerImage(const DetectionSource& source) {
    int64_t most = 0;
    for (int64_t i = 0; i < source.size(); ++i) {
        const auto& boxes = source.labels(i).boxes;
        most = std::max<int64_t>(most, std::count_if(boxes.begin(), boxes.end(),
                                                     [](const LabeledBox& b) { return !b.crowd; }));
    }
    return most;
}

LabeledBox toPixels(const LabeledBox& box, int width, int height) {
    const auto w = static_cast<float>(width), h = static_cast<float>(height);
    return {box.category, box.x1 * w, box.y1 * h, box.x2 * w, box.y2 * h, box.crowd};
}

} // namespace tb

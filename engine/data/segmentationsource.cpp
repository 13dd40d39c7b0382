// The class count every segmentation reader checks its masks with.
#include "data/segmentationsource.h"

#include "core/errors.h"

namespace tb {

MaskCounts countMask(const ClassMask& mask, int classes, const std::string& maskName) {
    MaskCounts counts;
    counts.perClass.assign(static_cast<std::size_t>(classes), 0);
    for (std::size_t i = 0; i < mask.classes.size(); ++i) {
        const uint8_t c = mask.classes[i];
        if (c < classes) {
            ++counts.perClass[c];
        } else if (c == kMaskIgnore) {
            ++counts.ignored;
        } else {
            const auto x = static_cast<int64_t>(i % static_cast<std::size_t>(mask.width));
            const auto y = static_cast<int64_t>(i / static_cast<std::size_t>(mask.width));
            throw DatasetError(maskName, -1,
                               "pixel (" + std::to_string(x) + ", " + std::to_string(y) +
                                   ") has class " + std::to_string(c) + ", beyond the " +
                                   std::to_string(classes) + " classes named (0.." +
                                   std::to_string(classes - 1) + ", and 255 for ignored pixels)");
        }
    }
    return counts;
}

} // namespace tb

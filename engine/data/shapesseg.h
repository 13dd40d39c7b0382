// shapes-seg: shapes-detect's seeded scenes (overlapping shapes on striped, noisy backgrounds)
// with a mask each instead of boxes: the background class 0, each shape's class where it covers
// a pixel whole, and the ignore index on its outline, where a pixel is part shape and part
// background (VOC marks its objects' borders so). Needs no files.
#pragma once

#include "data/segmentationsource.h"
#include "data/shapesdetect.h"

namespace tb {

class ShapesSegSource : public SegmentationSource {
public:
    ShapesSegSource(int64_t images, int imageSize, uint64_t seed, std::string description);

    int64_t size() const override { return m_scenes.size(); }
    // "background", then shapes-detect's five shapes.
    std::vector<std::string> classNames() const override;
    void load(int64_t index, SegmentedImage& out) const override;
    const MaskCounts& maskCounts(int64_t index) const override {
        return m_counts[static_cast<std::size_t>(index)];
    }
    std::string imageName(int64_t index) const override { return m_scenes.imageName(index); }
    std::string description() const override { return m_description; }

private:
    ShapesDetectSource m_scenes;
    std::vector<MaskCounts> m_counts;
    std::string m_description;
};

} // namespace tb

// shapes-detect: seeded scenes of several shapes (circle, square, triangle, star, cross) of
// varied sizes, colours, slants and overlaps on textured backgrounds, with their boxes. Like the
// other synthetic sets it needs no files: a scene is computed from (set seed, index), its boxes
// from the shapes' corners (so they are known without drawing it), its pixels when it is loaded.
#pragma once

#include "data/detectionsource.h"
#include "data/maskcodec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

class ShapesDetectSource : public DetectionSource {
public:
    static constexpr int kMaxObjects = 8; // shapes in one scene at most

    ShapesDetectSource(int64_t images, int imageSize, uint64_t seed, std::string description);

    int64_t size() const override { return static_cast<int64_t>(m_scenes.size()); }
    std::vector<std::string> classNames() const override;
    LabeledImage load(int64_t index) const override;
    // Each pixel's class as shapes-seg labels it: 0 the background, 1 + the shape's category
    // where a shape covers the pixel whole, the ignore index where it covers part of it (an
    // outline, as VOC marks its objects'). Later shapes lie over earlier ones, as drawn.
    ClassMask mask(int64_t index) const;
    const ImageLabels& labels(int64_t index) const override;
    std::string imageName(int64_t index) const override;
    std::string description() const override { return m_description; }

    struct Shape {
        int category;
        float cx, cy, radius, angle; // pixels and radians
        float rgb[3];
    };

private:
    struct Scene {
        uint64_t seed;
        float background[3], stripe[3]; // base colour and the texture's
        std::vector<Shape> shapes;
        ImageLabels labels;
    };
    Scene compose(uint64_t seed) const;

    int m_size;
    std::string m_description;
    std::vector<Scene> m_scenes;
};

} // namespace tb

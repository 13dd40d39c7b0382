// ShapesSegSource: shapes-detect's drawing, and its masks rasterised from the same shapes.
#include "data/shapesseg.h"

namespace tb {

ShapesSegSource::ShapesSegSource(int64_t images, int imageSize, uint64_t seed,
                                 std::string description)
    : m_scenes(images, imageSize, seed, description), m_description(std::move(description)) {
    const auto classes = static_cast<int>(classNames().size());
    m_counts.reserve(static_cast<std::size_t>(images));
    for (int64_t i = 0; i < images; ++i)
        m_counts.push_back(countMask(m_scenes.mask(i), classes, imageName(i)));
}

std::vector<std::string> ShapesSegSource::classNames() const {
    std::vector<std::string> names{"background"};
    for (const std::string& shape : m_scenes.classNames())
        names.push_back(shape);
    return names;
}

void ShapesSegSource::load(int64_t index, SegmentedImage& out) const {
    out.image = m_scenes.load(index).image;
    out.mask = m_scenes.mask(index);
}

} // namespace tb

// SegmentationDataset: decode, then warp image and mask together.
#include "data/segmentationdataset.h"

#include <algorithm>
#include <vector>

namespace tb {

SegmentationDataset::SegmentationDataset(std::shared_ptr<const SegmentationSource> source, int size,
                                         bool augment, const SegmentAugmentOptions& options)
    : m_source(std::move(source)), m_names(m_source->classNames()), m_size(size),
      m_augment(augment), m_options(options) {}

int32_t SegmentationDataset::label(int64_t index) const {
    const std::vector<int64_t>& pixels = m_source->maskCounts(index).perClass;
    const auto most = std::max_element(pixels.begin() + 1, pixels.end());
    return most != pixels.end() && *most > 0 ? static_cast<int32_t>(most - pixels.begin()) : 0;
}

SegmentWarp SegmentationDataset::warpFor(const SegmentedImage& decoded, uint64_t seed) const {
    const int w = decoded.image.width, h = decoded.image.height;
    return m_augment ? trainingWarp(w, h, m_size, m_options, seed) : resizeWarp(w, h, m_size);
}

void SegmentationDataset::sample(int64_t index, float* out, int32_t* targets, uint64_t seed) const {
    // One decoded sample per loader thread: its buffers are reused from sample to sample.
    thread_local SegmentedImage decoded;
    m_source->load(index, decoded);
    warpSample(decoded, warpFor(decoded, seed), m_size, out, targets);
}

int32_t SegmentationDataset::get(int64_t index, float* out, uint64_t seed) const {
    thread_local std::vector<int32_t> mask;
    mask.resize(static_cast<std::size_t>(targetsPerSample()));
    sample(index, out, mask.data(), seed);
    return label(index);
}

SegmentedImage SegmentationDataset::segmentedSample(int64_t index, uint64_t seed) const {
    SegmentedImage decoded;
    m_source->load(index, decoded);
    return warpSegmented(decoded, warpFor(decoded, seed), m_size);
}

} // namespace tb

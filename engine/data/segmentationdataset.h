// A segmentation set as the loader and trainer see it: each image brought to size x size
// (augmented, or resized whole), its pixels as floats in [0, 1] (channels first; normalised by
// a NormalizeDataset over it, as the other sets) and its mask as size x size integer targets,
// the ignore index (255) where no class counts.
#pragma once

#include "data/dataset.h"
#include "data/segmentationsource.h"
#include "data/segmentaugment.h"

#include <memory>

namespace tb {

class SegmentationDataset : public Dataset {
public:
    // `augment`: torchvision's training transforms (segmentaugment.h) with `options`; else the
    // whole image resized, as validation sees it.
    SegmentationDataset(std::shared_ptr<const SegmentationSource> source, int size, bool augment,
                        const SegmentAugmentOptions& options = {});

    int64_t size() const override { return m_source->size(); }
    Shape sampleShape() const override { return {3, m_size, m_size}; }
    int numClasses() const override { return static_cast<int>(m_names.size()); }
    std::vector<std::string> classNames() const override { return m_names; }
    // The class with the most pixels after class 0 (the background), or 0 when the mask has no
    // other: what a sample "is" where one label is wanted (the sample grid's colour).
    int32_t label(int64_t index) const override;
    int32_t get(int64_t index, float* out, uint64_t seed) const override;
    int64_t targetsPerSample() const override { return int64_t{m_size} * m_size; }
    void sample(int64_t index, float* out, int32_t* targets, uint64_t seed) const override;
    std::string description() const override { return m_source->description(); }

    // The sample as 8-bit pixels and mask, through the same transform as sample() (the
    // augmented batch view, overlays).
    SegmentedImage segmentedSample(int64_t index, uint64_t seed) const;

    const SegmentationSource& source() const { return *m_source; }
    const std::shared_ptr<const SegmentationSource>& sharedSource() const { return m_source; }
    int imageSize() const { return m_size; }
    bool augmented() const { return m_augment; }
    const SegmentAugmentOptions& options() const { return m_options; }

private:
    SegmentWarp warpFor(const SegmentedImage& decoded, uint64_t seed) const;

    std::shared_ptr<const SegmentationSource> m_source;
    std::vector<std::string> m_names;
    int m_size;
    bool m_augment;
    SegmentAugmentOptions m_options;
};

} // namespace tb

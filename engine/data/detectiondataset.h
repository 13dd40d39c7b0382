// A detection set as the loader and trainer see it: every image letterboxed (validation) or
// augmented (training: mosaic, scale/translate, HSV, flip) to size x size, its pixels as floats
// in [0, 1] (channels first, as Ultralytics feeds YOLOv8) and its boxes in those pixels.
#pragma once

#include "data/dataset.h"
#include "data/detectaugment.h"
#include "data/detectionsource.h"

#include <atomic>
#include <memory>

namespace tb {

class DetectionDataset : public Dataset {
public:
    // `train`: augment with `options`, crowd regions left out; otherwise letterbox only, crowd
    // regions kept (flagged) for evaluation to ignore.
    DetectionDataset(std::shared_ptr<const DetectionSource> source, int size, bool train,
                     const DetectAugmentOptions& options = {});

    int64_t size() const override { return m_source->size(); }
    Shape sampleShape() const override { return {3, m_size, m_size}; }
    int numClasses() const override { return static_cast<int>(m_names.size()); }
    std::vector<std::string> classNames() const override { return m_names; }
    // The class of the image's largest box (-1 for a background image): what a sample "is"
    // where one label is wanted (the sample grid's colour).
    int32_t label(int64_t index) const override;
    int32_t get(int64_t index, float* out, uint64_t seed) const override;
    int64_t maxBoxes() const override { return m_maxBoxes; }
    void sampleBoxes(int64_t index, float* out, float* boxes, uint64_t seed) const override;
    std::string description() const override { return m_source->description(); }

    // The sample as an 8-bit image with its boxes, as sampleBoxes() makes it (the augmented
    // batch view, exports).
    LabeledImage labeledSample(int64_t index, uint64_t seed) const;

    const DetectionSource& source() const { return *m_source; }
    int imageSize() const { return m_size; }
    bool training() const { return m_train; }
    // Ultralytics' close_mosaic: the trainer turns the mosaic off for the last epochs. Takes
    // effect for batches produced after the call (the trainer calls it between epochs).
    void setMosaic(bool on) const { m_mosaicOn.store(on, std::memory_order_relaxed); }
    bool mosaic() const { return m_mosaicOn.load(std::memory_order_relaxed); }

private:
    std::shared_ptr<const DetectionSource> m_source;
    std::vector<std::string> m_names;
    int m_size;
    bool m_train;
    DetectAugmentOptions m_options;
    int64_t m_maxBoxes;
    mutable std::atomic<bool> m_mosaicOn;
};

} // namespace tb

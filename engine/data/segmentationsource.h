// Where a segmentation set's images and masks come from, before resizing or augmentation: the
// seeded shapes-seg scenes, Pascal VOC's layout or a pair of images/ and masks/ folders. The
// file readers check every mask when they open (format, size against its image, classes), so a
// bad one is named before training starts, and count each class's pixels on the way (the
// statistics dataset-info shows).
#pragma once

#include "data/imagecodec.h"
#include "data/maskcodec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

// A mask's pixels of each class, and those ignored.
struct MaskCounts {
    std::vector<int64_t> perClass;
    int64_t ignored = 0;
    bool operator==(const MaskCounts&) const = default;
};

struct SegmentedImage {
    RgbImage image;
    ClassMask mask; // the image's size; classes < classNames().size(), or kMaskIgnore
};

class SegmentationSource {
public:
    virtual ~SegmentationSource() = default;

    virtual int64_t size() const = 0;
    // Class 0 first (the background in VOC's and the generated sets).
    virtual std::vector<std::string> classNames() const = 0;
    // Image `index` and its mask decoded into `out` (its buffers reused). Throws DatasetError
    // naming the file for a mask that does not fit its image or names an unknown class. Safe to
    // call from several threads.
    virtual void load(int64_t index, SegmentedImage& out) const = 0;
    // Pixels of each class in image `index`'s mask, and those ignored, known without decoding
    // it again.
    virtual const MaskCounts& maskCounts(int64_t index) const = 0;
    // The image's file (for generated scenes, the name to export it as):
    // "JPEGImages/2007_000032.jpg".
    virtual std::string imageName(int64_t index) const = 0;
    // "shapes-seg train (2000 images)", "voc /data/VOC2012 val (1449 images)".
    virtual std::string description() const = 0;
    // What the reader skipped while opening, one line each; nothing is skipped silently.
    const std::vector<std::string>& warnings() const { return m_warnings; }

protected:
    std::vector<std::string> m_warnings;
};

// Pixels of each of `classes` classes in `mask`, and those ignored; throws DatasetError naming
// `maskName` and the first pixel whose class is neither one of them nor the ignore index.
MaskCounts countMask(const ClassMask& mask, int classes, const std::string& maskName);

} // namespace tb

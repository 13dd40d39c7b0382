// Where a detection set's images and boxes come from, before any resizing or augmentation: the
// seeded shapes-detect scenes, a YOLO folder (data.yaml) or a COCO instances file. The readers
// read every label when they open, so that a bad one is reported before training starts and the
// boxes are known without decoding an image (statistics, export, capacity of a batch).
#pragma once

#include "data/labeledimage.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tb {

class DetectionSource {
public:
    virtual ~DetectionSource() = default;

    virtual int64_t size() const = 0;
    virtual std::vector<std::string> classNames() const = 0;
    // Image `index` decoded, with its boxes in its pixels. Safe to call from several threads.
    virtual LabeledImage load(int64_t index) const = 0;
    // Image `index`'s boxes as fractions of its size, without decoding it.
    virtual const ImageLabels& labels(int64_t index) const = 0;
    // Its width and height: the labels' where the reader knows them (COCO, generated scenes).
    virtual std::pair<int, int> imageSize(int64_t index) const {
        return {labels(index).width, labels(index).height};
    }
    // The image's file (or, for generated scenes, a name to export it as): "images/val/7.jpg".
    virtual std::string imageName(int64_t index) const = 0;
    // "shapes-detect train (2000 images)", "yolo /data/coco128/data.yaml train (128 images)".
    virtual std::string description() const = 0;
    // What the reader skipped while opening, one line each ("labels/train/3.txt, line 2: a box
    // of zero width, skipped"); nothing is skipped silently.
    const std::vector<std::string>& warnings() const { return m_warnings; }

protected:
    std::vector<std::string> m_warnings;
};

// The most boxes any image of `source` has (crowd regions excluded: they are not trained on).
int64_t maxBoxesPerImage(const DetectionSource& source);

// A pixel box of a decoded image from a box in fractions of its size.
LabeledBox toPixels(const LabeledBox& box, int width, int height);

} // namespace tb

// The window's view of what a segmentation model sees: validation images of its run (the ones
// an epoch scored worst, or the first), each with its true mask and the model's, both at the
// image's own size, and the image's mean IoU between them, so that a view can lay either over
// the image at any opacity without running the model again.
#pragma once

#include "data/maskcodec.h"
#include "train/segmenter.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

struct SegmentedGalleryImage {
    std::string name;  // the image's file in its set ("JPEGImages/2007_000033.jpg")
    int64_t index = 0; // in the validation split
    RgbImage image;
    ClassMask truth;      // 255 where no class counts
    ClassMask predicted;  // a class at every pixel
    double meanIoU = 0.0; // over the classes either mask holds, ignored pixels left out
};

// The validation images `indices` names (those beyond the split skipped), or the first `count`
// when it is empty, segmented in batches of 8. Throws what the dataset readers throw.
std::vector<SegmentedGalleryImage> segmenterGallery(Segmenter& segmenter,
                                                    const std::vector<int64_t>& indices, int count);

} // namespace tb

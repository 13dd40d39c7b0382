// What a detection set is made of: images and their boxes, each box a class and corners. The
// readers (shapes-detect, YOLO folders, COCO JSON) keep boxes as fractions of the image's width
// and height, as YOLO's label files do, so that a box needs no decoded image to be counted,
// exported or checked; the detection dataset turns them into pixels when it decodes an image.
#pragma once

#include "data/imagecodec.h"

#include <cstdint>
#include <vector>

namespace tb {

struct LabeledBox {
    int32_t category = 0; // index into the set's class names
    float x1 = 0, y1 = 0, x2 = 0, y2 = 0;
    // COCO's iscrowd: a region of many objects, kept out of training and ignored by evaluation.
    bool crowd = false;

    float width() const { return x2 - x1; }
    float height() const { return y2 - y1; }
};

// An image's labels without its pixels: its size (0 x 0 when the reader has not read it) and its
// boxes in fractions of that size.
struct ImageLabels {
    int width = 0, height = 0;
    std::vector<LabeledBox> boxes;
};

// A decoded image with its boxes in its own pixels.
struct LabeledImage {
    RgbImage image;
    std::vector<LabeledBox> boxes;
};

} // namespace tb

// Segmentation's geometric transforms, moving each mask with its pixels: the image resampled
// (bilinear, averaged over the footprint when shrinking), the mask by nearest neighbour, so a
// class is never interpolated into another. Training draws torchvision's reference recipe
// (references/segmentation/presets.py): the shorter side resized to a random multiple of the
// input size, a horizontal flip, a random crop, padded with black and ignored mask where the
// resized image is smaller than the crop. Validation resizes the whole image to the input size.
#pragma once

#include "data/segmentationsource.h"

#include <cstdint>

namespace tb {

struct SegmentAugmentOptions {
    // The shorter side becomes [scaleMin, scaleMax] x the input size (torchvision's
    // RandomResize(0.5 * base, 2.0 * base)).
    float scaleMin = 0.5f, scaleMax = 2.0f;
    float fliplr = 0.5f; // probability
};

// Where each output pixel is read from: in continuous pixel coordinates (pixel i spans
// [i, i + 1)), source x = scaleX * output x + offsetX, and the same for y. A negative scale
// mirrors.
struct SegmentWarp {
    double scaleX = 1, offsetX = 0, scaleY = 1, offsetY = 0;
};

// The whole width x height image onto size x size (validation, predictions).
SegmentWarp resizeWarp(int width, int height, int size);
// A training draw from `seed`, independent of the thread that asks.
SegmentWarp trainingWarp(int width, int height, int size, const SegmentAugmentOptions& options,
                         uint64_t seed);

// The image alone, as warpSample writes it (a prediction's input).
void warpImage(const RgbImage& in, const SegmentWarp& warp, int size, float* image);
// The warped sample: `image` gets 3 x size x size floats in [0, 1] (channels first; 0 beyond
// the source image), `mask` size x size classes (the ignore index beyond it).
void warpSample(const SegmentedImage& in, const SegmentWarp& warp, int size, float* image,
                int32_t* mask);
// The same as an 8-bit image and mask (the sample grid, exports, overlays).
SegmentedImage warpSegmented(const SegmentedImage& in, const SegmentWarp& warp, int size);

} // namespace tb

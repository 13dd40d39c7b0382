// Detection's image transforms, each moving the boxes exactly with the pixels: letterboxing,
// Ultralytics' 4-image mosaic, its random affine (scale and translate), horizontal flip and HSV
// jitter. Coordinates are continuous pixels (pixel i spans [i, i + 1)), so a box drawn on an
// image covers the same pixels after any of them. Boxes cut by the canvas are clipped, and
// dropped when too little of them remains (Ultralytics' box_candidates).
#pragma once

#include "data/labeledimage.h"

#include <array>
#include <cstdint>
#include <span>

namespace tb {

// Ultralytics' hyperparameter names and defaults (default.yaml).
struct DetectAugmentOptions {
    float hsvH = 0.015f, hsvS = 0.7f, hsvV = 0.4f; // gains drawn from [-g, g]
    float translate = 0.1f;                        // fraction of the side
    float scale = 0.5f;                            // gain drawn from [1 - s, 1 + s]
    float fliplr = 0.5f;                           // probability
    float mosaic = 1.0f;                           // probability
};

// The grey Ultralytics pads with (114 of 255).
inline constexpr uint8_t kLetterboxGrey = 114;

// A 2x3 affine map from source to destination pixels: x' = m[0] x + m[1] y + m[2], y' = ...
using Affine = std::array<double, 6>;

// The image resampled (bilinear) onto a width x height canvas of grey through `map`, boxes
// mapped by their corners and clipped. Boxes that keep too little of themselves are dropped.
LabeledImage warpAffine(const LabeledImage& in, const Affine& map, int width, int height);

// Resized so that its longer side is `size`, aspect kept (Ultralytics' load_image).
LabeledImage resizeLongSide(const LabeledImage& in, int size);

// Resized to fit size x size, aspect kept, and centred on a grey square (the validation input).
// `map` receives the mapping from the image's pixels to the square's (scale and padding).
LabeledImage letterbox(const LabeledImage& in, int size, Affine* map = nullptr);

// Ultralytics' 4-image mosaic: each image resized to a longer side of `size`, placed around the
// centre (centreX, centreY) of a 2 size square (top-left, top-right, bottom-left, bottom-right),
// its boxes moved with it and clipped.
LabeledImage mosaic4(std::span<const LabeledImage> images, int size, int centreX, int centreY);

// Ultralytics' RandomPerspective without rotation, shear or perspective: scale by `gain` about
// the image's centre, then place that centre at (tx, ty) of a width x height output.
LabeledImage scaleTranslate(const LabeledImage& in, double gain, double tx, double ty, int width,
                            int height);

void flipHorizontal(LabeledImage& image);

// Ultralytics' RandomHSV on 8-bit OpenCV HSV (hue 0..179): hue x gainH (wrapping), saturation and
// value x gainS, gainV (clipped).
void hsvJitter(RgbImage& image, double gainH, double gainS, double gainV);

// Whether the sample seeded `seed` is a mosaic (drawn with probability options.mosaic).
bool drawsMosaic(const DetectAugmentOptions& options, uint64_t seed);

// The training transform of one sample: a mosaic of four `images` (the sample's and three
// others) or the letterboxed one image, then scale/translate, HSV and flip, every draw from
// `seed`; a size x size result.
LabeledImage augmentForTraining(std::span<const LabeledImage> images, int size,
                                const DetectAugmentOptions& options, uint64_t seed);

} // namespace tb

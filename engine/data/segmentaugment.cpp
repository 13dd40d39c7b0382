// One axis-aligned resampler for every segmentation transform: the image by bilinear taps,
// several per output pixel when it shrinks (an area average, as PIL's antialiased resize
// approximates), the mask by the source pixel under each output pixel's centre.
#include "data/segmentaugment.h"

#include "backend/kernels/random_math.h"
#include "data/bilinear.h"

#include <algorithm>
#include <cmath>

namespace tb {

namespace {

// Fixed draws of a sample's seed, one a choice (named apart from detection's, which a unity
// batch may hold beside this file).
enum WarpDraw : uint64_t { ScaleDraw, FlipDraw, CropX, CropY };

// Taps per output pixel along an axis: one while enlarging, up to 8 while shrinking.
int tapsFor(double scale) {
    return std::clamp(static_cast<int>(std::ceil(std::fabs(scale) - 1e-9)), 1, 8);
}

template <class Store>
void resample(const RgbImage& in, const SegmentWarp& w, int size, Store store) {
    const int sw = in.width, sh = in.height;
    const int tx = tapsFor(w.scaleX), ty = tapsFor(w.scaleY);
    for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x) {
            const double cx = w.scaleX * (x + 0.5) + w.offsetX;
            const double cy = w.scaleY * (y + 0.5) + w.offsetY;
            if (cx < 0 || cy < 0 || cx >= sw || cy >= sh) {
                store(x, y, nullptr); // beyond the image
                continue;
            }
            double sum[3] = {0, 0, 0};
            for (int j = 0; j < ty; ++j)
                for (int i = 0; i < tx; ++i) {
                    // Taps spread evenly over the output pixel's footprint, clamped to the image.
                    const double u = w.scaleX * (x + (i + 0.5) / tx) + w.offsetX - 0.5;
                    const double v = w.scaleY * (y + (j + 0.5) / ty) + w.offsetY - 0.5;
                    double rgb[3];
                    bilinearTap(in, std::clamp(u, -0.5, sw - 0.5), std::clamp(v, -0.5, sh - 0.5),
                                rgb);
                    for (int ch = 0; ch < 3; ++ch)
                        sum[ch] += rgb[ch];
                }
            const double scale = 1.0 / (tx * ty);
            const double rgb[3] = {sum[0] * scale, sum[1] * scale, sum[2] * scale};
            store(x, y, rgb);
        }
}

template <class Store>
void resampleMask(const ClassMask& in, const SegmentWarp& w, int size, Store store) {
    for (int y = 0; y < size; ++y) {
        const double cy = w.scaleY * (y + 0.5) + w.offsetY;
        for (int x = 0; x < size; ++x) {
            const double cx = w.scaleX * (x + 0.5) + w.offsetX;
            if (cx < 0 || cy < 0 || cx >= in.width || cy >= in.height) {
                store(x, y, kMaskIgnore);
                continue;
            }
            const auto sx = static_cast<std::size_t>(cx), sy = static_cast<std::size_t>(cy);
            store(x, y, in.classes[sy * static_cast<std::size_t>(in.width) + sx]);
        }
    }
}

} // namespace

SegmentWarp resizeWarp(int width, int height, int size) {
    return {static_cast<double>(width) / size, 0.0, static_cast<double>(height) / size, 0.0};
}

SegmentWarp trainingWarp(int width, int height, int size, const SegmentAugmentOptions& o,
                         uint64_t seed) {
    const double shorter = std::min(width, height);
    const double target =
        size * (o.scaleMin + (o.scaleMax - o.scaleMin) * math::uniform01(seed, ScaleDraw));
    const double gain = target / shorter; // output pixels per source pixel
    const double resizedW = width * gain, resizedH = height * gain;
    // Integer crop corners as RandomCrop draws them; a resized image smaller than the crop
    // starts at 0 and is padded on the right and bottom.
    auto corner = [&](double resized, WarpDraw draw) {
        const double room = std::floor(std::max(0.0, resized - size));
        return std::floor(math::uniform01(seed, draw) * (room + 1.0));
    };
    const double cropX = corner(resizedW, CropX), cropY = corner(resizedH, CropY);
    SegmentWarp w{1.0 / gain, cropX / gain, 1.0 / gain, cropY / gain};
    if (math::uniform01(seed, FlipDraw) < o.fliplr) {
        // Flipped before the crop: output x reads the resized image at resizedW - (x + cropX).
        w.scaleX = -1.0 / gain;
        w.offsetX = (resizedW - cropX) / gain;
    }
    return w;
}

void warpImage(const RgbImage& in, const SegmentWarp& warp, int size, float* image) {
    const auto plane = static_cast<std::size_t>(size) * static_cast<std::size_t>(size);
    resample(in, warp, size, [&](int x, int y, const double* rgb) {
        const std::size_t at = static_cast<std::size_t>(y) * static_cast<std::size_t>(size) +
                               static_cast<std::size_t>(x);
        for (std::size_t ch = 0; ch < 3; ++ch)
            image[ch * plane + at] = rgb ? static_cast<float>(rgb[ch] / 255.0) : 0.0f;
    });
}

void warpSample(const SegmentedImage& in, const SegmentWarp& warp, int size, float* image,
                int32_t* mask) {
    warpImage(in.image, warp, size, image);
    resampleMask(in.mask, warp, size, [&](int x, int y, uint8_t c) {
        mask[static_cast<std::size_t>(y) * static_cast<std::size_t>(size) +
             static_cast<std::size_t>(x)] = c;
    });
}

SegmentedImage warpSegmented(const SegmentedImage& in, const SegmentWarp& warp, int size) {
    SegmentedImage out;
    const auto plane = static_cast<std::size_t>(size) * static_cast<std::size_t>(size);
    out.image.width = out.image.height = size;
    out.image.pixels.assign(plane * 3, 0);
    out.mask.width = out.mask.height = size;
    out.mask.classes.assign(plane, kMaskIgnore);
    resample(in.image, warp, size, [&](int x, int y, const double* rgb) {
        if (!rgb)
            return;
        const std::size_t at = static_cast<std::size_t>(y) * static_cast<std::size_t>(size) +
                               static_cast<std::size_t>(x);
        for (std::size_t ch = 0; ch < 3; ++ch)
            out.image.pixels[at * 3 + ch] = static_cast<uint8_t>(std::lround(rgb[ch]));
    });
    resampleMask(in.mask, warp, size, [&](int x, int y, uint8_t c) {
        out.mask.classes[static_cast<std::size_t>(y) * static_cast<std::size_t>(size) +
                         static_cast<std::size_t>(x)] = c;
    });
    return out;
}

} // namespace tb

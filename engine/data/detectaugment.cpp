// Detection transforms: one bilinear affine resampler that every geometric step goes through, so
// that pixels and boxes are mapped by the same matrix; HSV in OpenCV's 8-bit convention.
#include "data/detectaugment.h"

#include "backend/kernels/random_math.h"
#include "data/bilinear.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace tb {

namespace {

// Fixed draws of a sample's seed, so that each choice is independent of the others.
enum Draw : uint64_t { MosaicDraw, CentreX, CentreY, Gain, ShiftX, ShiftY, Hue, Sat, Val, Flip };

double uniform(uint64_t seed, Draw draw, double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(math::uniform01(seed, draw));
}

// The box through the map, bounded by its mapped corners (no clipping).
LabeledBox mapBox(const LabeledBox& b, const Affine& m) {
    const double xs[2] = {b.x1, b.x2}, ys[2] = {b.y1, b.y2};
    double x1 = 1e300, y1 = 1e300, x2 = -1e300, y2 = -1e300;
    for (double x : xs)
        for (double y : ys) {
            const double u = m[0] * x + m[1] * y + m[2], v = m[3] * x + m[4] * y + m[5];
            x1 = std::min(x1, u);
            x2 = std::max(x2, u);
            y1 = std::min(y1, v);
            y2 = std::max(y2, v);
        }
    LabeledBox out = b;
    out.x1 = static_cast<float>(x1);
    out.y1 = static_cast<float>(y1);
    out.x2 = static_cast<float>(x2);
    out.y2 = static_cast<float>(y2);
    return out;
}

LabeledBox clipBox(LabeledBox b, int width, int height) {
    const auto w = static_cast<float>(width), h = static_cast<float>(height);
    b.x1 = std::clamp(b.x1, 0.0f, w);
    b.x2 = std::clamp(b.x2, 0.0f, w);
    b.y1 = std::clamp(b.y1, 0.0f, h);
    b.y2 = std::clamp(b.y2, 0.0f, h);
    return b;
}

// Mapped, clipped to the canvas and kept when anything of it remains.
std::vector<LabeledBox> mapBoxes(const std::vector<LabeledBox>& boxes, const Affine& m, int width,
                                 int height) {
    std::vector<LabeledBox> out;
    for (const LabeledBox& b : boxes) {
        const LabeledBox c = clipBox(mapBox(b, m), width, height);
        if (c.width() > 0 && c.height() > 0)
            out.push_back(c);
    }
    return out;
}

RgbImage warpPixels(const RgbImage& in, const Affine& m, int width, int height) {
    RgbImage out;
    out.width = width;
    out.height = height;
    out.pixels.assign(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3,
                      kLetterboxGrey);
    const double det = m[0] * m[4] - m[1] * m[3];
    // The inverse map: destination pixel centre to source point.
    const double a = m[4] / det, b = -m[1] / det, d = -m[3] / det, e = m[0] / det;
    const double c = -(a * m[2] + b * m[5]), f = -(d * m[2] + e * m[5]);
    const int sw = in.width, sh = in.height;
    // A destination pixel whose centre falls outside the image stays grey.
    for (int y = 0; y < height; ++y) {
        uint8_t* row = out.pixels.data() + static_cast<std::size_t>(y) * width * 3;
        for (int x = 0; x < width; ++x) {
            const double cx = x + 0.5, cy = y + 0.5;
            // Source pixel centres sit at i + 0.5: interpolate between the four around.
            const double sx = a * cx + b * cy + c - 0.5, sy = d * cx + e * cy + f - 0.5;
            if (sx < -0.5 || sy < -0.5 || sx >= sw - 0.5 || sy >= sh - 0.5)
                continue; // outside the image: stays grey
            double rgb[3];
            bilinearTap(in, sx, sy, rgb);
            for (int ch = 0; ch < 3; ++ch)
                row[x * 3 + ch] = static_cast<uint8_t>(std::lround(rgb[ch]));
        }
    }
    return out;
}

} // namespace

LabeledImage warpAffine(const LabeledImage& in, const Affine& m, int width, int height) {
    return {warpPixels(in.image, m, width, height), mapBoxes(in.boxes, m, width, height)};
}

LabeledImage resizeLongSide(const LabeledImage& in, int size) {
    const int w = in.image.width, h = in.image.height;
    if (std::max(w, h) == size)
        return in;
    const double r = static_cast<double>(size) / std::max(w, h);
    const int nw = std::min(size, static_cast<int>(std::ceil(w * r)));
    const int nh = std::min(size, static_cast<int>(std::ceil(h * r)));
    return warpAffine(in, {static_cast<double>(nw) / w, 0, 0, 0, static_cast<double>(nh) / h, 0},
                      nw, nh);
}

LabeledImage letterbox(const LabeledImage& in, int size, Affine* map) {
    const int w = in.image.width, h = in.image.height;
    const double r = std::min(static_cast<double>(size) / w, static_cast<double>(size) / h);
    const auto nw = static_cast<int>(std::lround(w * r)), nh = static_cast<int>(std::lround(h * r));
    // Ultralytics' LetterBox: half the padding each side, the odd pixel right and below.
    const double left = std::lround((size - nw) / 2.0 - 0.1);
    const double top = std::lround((size - nh) / 2.0 - 0.1);
    const Affine m{static_cast<double>(nw) / w, 0, left, 0, static_cast<double>(nh) / h, top};
    if (map)
        *map = m;
    return warpAffine(in, m, size, size);
}

LabeledImage mosaic4(std::span<const LabeledImage> images, int size, int xc, int yc) {
    const int s2 = 2 * size;
    LabeledImage out;
    out.image.width = out.image.height = s2;
    out.image.pixels.assign(static_cast<std::size_t>(s2) * s2 * 3, kLetterboxGrey);
    for (std::size_t i = 0; i < images.size() && i < 4; ++i) {
        const LabeledImage img = resizeLongSide(images[i], size);
        const int w = img.image.width, h = img.image.height;
        int x1a, y1a, x2a, y2a, x1b, y1b; // canvas region and where it starts in the image
        if (i == 0) {                     // top left
            x1a = std::max(xc - w, 0), y1a = std::max(yc - h, 0), x2a = xc, y2a = yc;
            x1b = w - (x2a - x1a), y1b = h - (y2a - y1a);
        } else if (i == 1) { // top right
            x1a = xc, y1a = std::max(yc - h, 0), x2a = std::min(xc + w, s2), y2a = yc;
            x1b = 0, y1b = h - (y2a - y1a);
        } else if (i == 2) { // bottom left
            x1a = std::max(xc - w, 0), y1a = yc, x2a = xc, y2a = std::min(s2, yc + h);
            x1b = w - (x2a - x1a), y1b = 0;
        } else { // bottom right
            x1a = xc, y1a = yc, x2a = std::min(xc + w, s2), y2a = std::min(s2, yc + h);
            x1b = 0, y1b = 0;
        }
        const int cols = std::min(x2a - x1a, w - x1b), rows = std::min(y2a - y1a, h - y1b);
        for (int r = 0; r < rows; ++r)
            std::copy_n(
                img.image.pixels.begin() + ((static_cast<std::ptrdiff_t>(y1b + r) * w + x1b) * 3),
                cols * 3,
                out.image.pixels.begin() + ((static_cast<std::ptrdiff_t>(y1a + r) * s2 + x1a) * 3));
        const auto boxes = mapBoxes(
            img.boxes, {1, 0, static_cast<double>(x1a - x1b), 0, 1, static_cast<double>(y1a - y1b)},
            s2, s2);
        out.boxes.insert(out.boxes.end(), boxes.begin(), boxes.end());
    }
    return out;
}

LabeledImage scaleTranslate(const LabeledImage& in, double gain, double tx, double ty, int width,
                            int height) {
    const double cx = in.image.width / 2.0, cy = in.image.height / 2.0;
    const Affine m{gain, 0, tx - gain * cx, 0, gain, ty - gain * cy};
    LabeledImage out{warpPixels(in.image, m, width, height), {}};
    // Ultralytics' box_candidates: more than 2 px each way, more than 10% of the box's scaled
    // area left after clipping, aspect ratio under 100.
    for (const LabeledBox& b : in.boxes) {
        const LabeledBox whole = mapBox(b, m), c = clipBox(whole, width, height);
        const double w = c.width(), h = c.height();
        if (w > 2 && h > 2 &&
            w * h / (static_cast<double>(whole.width()) * whole.height() + 1e-16) > 0.1 &&
            std::max(w / (h + 1e-16), h / (w + 1e-16)) < 100)
            out.boxes.push_back(c);
    }
    return out;
}

void flipHorizontal(LabeledImage& in) {
    const int w = in.image.width;
    for (int y = 0; y < in.image.height; ++y) {
        uint8_t* row = in.image.pixels.data() + static_cast<std::size_t>(y) * w * 3;
        for (int x = 0; x < w / 2; ++x)
            for (int ch = 0; ch < 3; ++ch)
                std::swap(row[x * 3 + ch], row[(w - 1 - x) * 3 + ch]);
    }
    for (LabeledBox& b : in.boxes) {
        const float x1 = static_cast<float>(w) - b.x2;
        b.x2 = static_cast<float>(w) - b.x1;
        b.x1 = x1;
    }
}

void hsvJitter(RgbImage& image, double gainH, double gainS, double gainV) {
    uint8_t hue[256], sat[256], val[256];
    for (int x = 0; x < 256; ++x) {
        hue[x] = static_cast<uint8_t>(static_cast<int>(x * gainH) % 180);
        sat[x] = static_cast<uint8_t>(std::clamp(x * gainS, 0.0, 255.0));
        val[x] = static_cast<uint8_t>(std::clamp(x * gainV, 0.0, 255.0));
    }
    // OpenCV's 8-bit RGB2HSV in its fixed point (12 fraction bits), so that hue rounds as there.
    constexpr int shift = 12, half = 1 << (shift - 1);
    static const auto tables = [] {
        std::array<std::array<int, 256>, 2> t{}; // saturation's and hue's divisors
        for (int i = 1; i < 256; ++i) {
            t[0][static_cast<std::size_t>(i)] =
                static_cast<int>(std::lround((255 << shift) / (1.0 * i)));
            t[1][static_cast<std::size_t>(i)] =
                static_cast<int>(std::lround((180 << shift) / (6.0 * i)));
        }
        return t;
    }();
    // Its HSV2RGB: sectors of the hue circle in float, rounded to nearest (ties to even).
    static constexpr int kSector[6][3] = {{0, 3, 1}, {2, 0, 1}, {1, 0, 3},
                                          {1, 2, 0}, {3, 1, 0}, {0, 1, 2}};
    for (std::size_t i = 0; i + 2 < image.pixels.size(); i += 3) {
        uint8_t* p = &image.pixels[i];
        const int r = p[0], g = p[1], b = p[2];
        const int v = std::max({r, g, b}), diff = v - std::min({r, g, b});
        const int s = (diff * tables[0][static_cast<std::size_t>(v)] + half) >> shift;
        int h = v == r ? g - b : v == g ? b - r + 2 * diff : r - g + 4 * diff;
        h = (h * tables[1][static_cast<std::size_t>(diff)] + half) >> shift;
        h += h < 0 ? 180 : 0;
        const float hh = static_cast<float>(hue[h]) * (6.0f / 180.0f);
        const float ss = static_cast<float>(sat[s]) * (1.0f / 255.0f);
        const float vv = static_cast<float>(val[v]) * (1.0f / 255.0f);
        float rgb[3] = {vv, vv, vv};
        if (ss != 0.0f) {
            int sector = static_cast<int>(std::floor(hh));
            float frac = hh - static_cast<float>(sector);
            if (sector < 0 || sector >= 6)
                sector = 0, frac = 0.0f;
            const float tab[4] = {vv, vv * (1.0f - ss), vv * (1.0f - ss * frac),
                                  vv * (1.0f - ss * (1.0f - frac))};
            for (int ch = 0; ch < 3; ++ch)
                rgb[ch] = tab[kSector[sector][ch]];
        }
        for (int ch = 0; ch < 3; ++ch)
            p[ch] =
                static_cast<uint8_t>(std::clamp(std::nearbyint(rgb[ch] * 255.0f), 0.0f, 255.0f));
    }
}

bool drawsMosaic(const DetectAugmentOptions& options, uint64_t seed) {
    return options.mosaic > 0 && math::uniform01(seed, MosaicDraw) < options.mosaic;
}

LabeledImage augmentForTraining(std::span<const LabeledImage> images, int size,
                                const DetectAugmentOptions& options, uint64_t seed) {
    LabeledImage img;
    if (images.size() == 4) {
        // The mosaic's centre within the middle half of its 2 size canvas; the affine below
        // then cuts a size x size view around it (Ultralytics' border of -size / 2).
        const int xc = static_cast<int>(uniform(seed, CentreX, size / 2.0, 1.5 * size));
        const int yc = static_cast<int>(uniform(seed, CentreY, size / 2.0, 1.5 * size));
        img = mosaic4(images, size, xc, yc);
    } else {
        img = letterbox(images[0], size);
    }
    const double gain = uniform(seed, Gain, 1.0 - options.scale, 1.0 + options.scale);
    const double tx = uniform(seed, ShiftX, 0.5 - options.translate, 0.5 + options.translate);
    const double ty = uniform(seed, ShiftY, 0.5 - options.translate, 0.5 + options.translate);
    img = scaleTranslate(img, gain, tx * size, ty * size, size, size);
    if (options.hsvH > 0 || options.hsvS > 0 || options.hsvV > 0)
        hsvJitter(img.image, 1.0 + uniform(seed, Hue, -1, 1) * options.hsvH,
                  1.0 + uniform(seed, Sat, -1, 1) * options.hsvS,
                  1.0 + uniform(seed, Val, -1, 1) * options.hsvV);
    if (math::uniform01(seed, Flip) < options.fliplr)
        flipHorizontal(img);
    return img;
}

} // namespace tb

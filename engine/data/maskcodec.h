// Segmentation masks as PNG files: a class index per pixel, in 8-bit grey or in a palette PNG
// whose indices are the classes (VOC's SegmentationClass), 255 marking pixels to ignore. Colour
// masks are refused: their colours would have to be guessed back into classes.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tb {

// VOC's and torchvision's "ignore this pixel" (object borders, unlabelled regions).
inline constexpr uint8_t kMaskIgnore = 255;

struct ClassMask {
    int width = 0;
    int height = 0;
    std::vector<uint8_t> classes; // (height, width), rows top to bottom
};

// What a mask PNG's header says, read without decoding it.
struct MaskHeader {
    int width = 0;
    int height = 0;
    bool palette = false; // indices into a palette (else grey levels)
};

// The header of a mask PNG; throws DatasetError naming `name` for anything but an 8-bit (or
// narrower) grey or palette PNG: an RGB mask, grey with alpha, 16-bit grey, a JPEG.
MaskHeader readMaskHeader(std::span<const uint8_t> bytes, const std::string& name);

// The class indices of a mask PNG (palette indices as stored, not their colours), into `out`.
// Throws DatasetError naming `name` as readMaskHeader() does, and for a damaged file.
void decodeMaskInto(std::span<const uint8_t> bytes, const std::string& name, ClassMask& out);

// VOC's colour map (VOCdevkit's labelcolormap): class i's colour from its bits, 255 cream.
const std::array<std::array<uint8_t, 3>, 256>& vocPalette();

// Writes `mask` as a palette PNG in VOC's colours, its indices the classes (what VOC ships and
// torchvision's VOCSegmentation reads). Throws Error when it cannot.
void writeMaskPng(const std::string& path, const ClassMask& mask);

} // namespace tb

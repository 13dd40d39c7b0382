// PNG and JPEG decoding from memory (libpng, libjpeg) into 8-bit RGB, and PNG writing for the
// sample grids. Decoders check the image size before allocating.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tb {

struct RgbImage {
    int width = 0;
    int height = 0;
    std::vector<uint8_t> pixels; // (height, width, 3), rows top to bottom
};

// Images larger than this many pixels are refused rather than decoded.
inline constexpr int64_t kMaxImagePixels = int64_t{64} << 20;

// Decodes a PNG or JPEG (told apart by their signatures; grey and palette images become RGB).
// `name` is the file for error messages; throws DatasetError for anything undecodable.
RgbImage decodeImage(std::span<const uint8_t> bytes, const std::string& name);

// Reads a whole file; throws DatasetError(path, -1, ...) when it is missing or unreadable.
std::vector<uint8_t> readWholeFile(const std::string& path);

// Writes an 8-bit grey (channels 1) or RGB (channels 3) PNG. Throws Error when it cannot.
void writePng(const std::string& path, int width, int height, int channels,
              const std::vector<uint8_t>& pixels);

} // namespace tb

// PNG and JPEG decoding from memory (libpng, libjpeg) into 8-bit RGB, and PNG writing for the
// sample grids. Decoders check the image size before allocating. A JPEG can be decoded at 1/2,
// 1/4 or 1/8 of its size by libjpeg's DCT scaling (what PIL's draft mode does), several times
// faster than decoding it whole and resizing.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tb {

struct RgbImage {
    int width = 0;
    int height = 0;
    std::vector<uint8_t> pixels; // (height, width, 3), rows top to bottom
    // The size stored in the file: width x height is this or, for a JPEG decoded with DCT
    // scaling, about 1/denominator of it (0: the same as width x height).
    int storedWidth = 0;
    int storedHeight = 0;
};

// Told the stored size before anything is decoded, returns libjpeg's scale denominator for a
// JPEG (1, 2, 4 or 8; PNGs are always decoded whole).
using DecodeScale = std::function<int(int storedWidth, int storedHeight)>;

// The largest DCT scale denominator (1, 2, 4 or 8) at which a crop of cropWidth x cropHeight
// stored pixels still has at least `size` pixels each way, so resampling it to size x size
// only ever shrinks (never upsamples what the decoder threw away).
int dctScaleFor(float cropWidth, float cropHeight, int size);

// Images larger than this many pixels are refused rather than decoded.
inline constexpr int64_t kMaxImagePixels = int64_t{64} << 20;

// Decodes a PNG or JPEG (told apart by their signatures; grey and palette images become RGB).
// `name` is the file for error messages; throws DatasetError for anything undecodable.
RgbImage decodeImage(std::span<const uint8_t> bytes, const std::string& name);
// The same into `out`, reusing its pixel buffer (a loader worker decodes every sample into one
// image), at the scale `scale` chooses when one is given.
void decodeImageInto(std::span<const uint8_t> bytes, const std::string& name, RgbImage& out,
                     const DecodeScale& scale = {});

// Whether a file name ends in what decodeImage reads: .png, .jpg or .jpeg, in any case.
bool isDecodableImageName(const std::string& path);

// The width and height a PNG or JPEG stores, from its header, without decoding it.
std::pair<int, int> storedImageSize(std::span<const uint8_t> bytes, const std::string& name);

// Reads a whole file; throws DatasetError(path, -1, ...) when it is missing or unreadable.
std::vector<uint8_t> readWholeFile(const std::string& path);
// The same into `out`, reusing its buffer.
void readWholeFileInto(const std::string& path, std::vector<uint8_t>& out);

// Writes an 8-bit grey (channels 1) or RGB (channels 3) PNG. Throws Error when it cannot.
void writePng(const std::string& path, int width, int height, int channels,
              const std::vector<uint8_t>& pixels);
// The same as a baseline JPEG of `quality` (1 to 100).
void writeJpeg(const std::string& path, int width, int height, int channels,
               const std::vector<uint8_t>& pixels, int quality);

} // namespace tb

// Mask PNGs through libpng's progressive-free low-level reader, which hands palette images over
// as their indices (the simplified API would turn them into colours).
#include "data/maskcodec.h"

#include "core/errors.h"
#include "data/imagecodec.h"

#include <png.h>

#include <csetjmp>
#include <cstring>

namespace tb {

namespace {

constexpr uint8_t kPngSignature[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};

struct MemoryReader {
    const uint8_t* data;
    std::size_t size;
    std::size_t at;
};

void readFromMemory(png_structp png, png_bytep out, png_size_t length) {
    auto* in = static_cast<MemoryReader*>(png_get_io_ptr(png));
    if (length > in->size - in->at)
        png_error(png, "the file ends inside an image chunk");
    std::memcpy(out, in->data + in->at, length);
    in->at += length;
}

struct PngFailure {
    std::jmp_buf jump;
    char message[200];
};

void pngFail(png_structp png, png_const_charp message) {
    auto* failure = static_cast<PngFailure*>(png_get_error_ptr(png));
    std::snprintf(failure->message, sizeof failure->message, "%s", message);
    std::longjmp(failure->jump, 1);
}

void pngQuiet(png_structp, png_const_charp) {}

// Decodes the indices into `pixels` (sized by the caller from the header, so nothing here
// allocates). No automatic object with a destructor lives in this frame: the longjmp from
// libpng's error handler skips nothing that needs cleaning up.
bool decodeIndices(const uint8_t* data, std::size_t size, uint8_t* pixels, int width, int height,
                   PngFailure& failure) {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &failure, pngFail, pngQuiet);
    if (!png) {
        std::snprintf(failure.message, sizeof failure.message, "out of memory");
        return false;
    }
    png_infop info = png_create_info_struct(png);
    MemoryReader reader{data, size, 0};
    if (setjmp(failure.jump)) {
        png_destroy_read_struct(&png, &info, nullptr);
        return false;
    }
    if (!info)
        png_error(png, "out of memory");
    png_set_read_fn(png, &reader, readFromMemory);
    png_read_info(png, info);
    // 1, 2 and 4-bit indices or grey levels one a byte, their values kept (not scaled to 255).
    if (png_get_bit_depth(png, info) < 8)
        png_set_packing(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != static_cast<png_size_t>(width))
        png_error(png, "unexpected row size");
    const int passes = png_set_interlace_handling(png);
    for (int pass = 0; pass < passes; ++pass)
        for (int y = 0; y < height; ++y)
            png_read_row(png,
                         pixels + static_cast<std::size_t>(y) * static_cast<std::size_t>(width),
                         nullptr);
    png_read_end(png, nullptr);
    png_destroy_read_struct(&png, &info, nullptr);
    return true;
}

} // namespace

MaskHeader readMaskHeader(std::span<const uint8_t> bytes, const std::string& name) {
    if (bytes.size() < 33 || std::memcmp(bytes.data(), kPngSignature, 8) != 0)
        throw DatasetError(name, 0,
                           "a mask must be a PNG (8-bit grey or palette) of class indices");
    const auto [width, height] = storedImageSize(bytes, name);
    const int depth = bytes[24], colourType = bytes[25];
    if (colourType == PNG_COLOR_TYPE_RGB || colourType == PNG_COLOR_TYPE_RGB_ALPHA)
        throw DatasetError(name, 25,
                           "a colour (RGB) mask; masks hold class indices, as 8-bit grey or "
                           "palette PNGs (VOC's SegmentationClass) do");
    if (colourType == PNG_COLOR_TYPE_GRAY_ALPHA)
        throw DatasetError(name, 25, "a grey mask with alpha; masks are 8-bit grey or palette");
    if (colourType != PNG_COLOR_TYPE_GRAY && colourType != PNG_COLOR_TYPE_PALETTE)
        throw DatasetError(name, 25, "unknown PNG colour type " + std::to_string(colourType));
    if (depth > 8)
        throw DatasetError(name, 24,
                           std::to_string(depth) +
                               "-bit grey; masks hold class indices up to 255 in 8 bits");
    if (width <= 0 || height <= 0 ||
        static_cast<int64_t>(width) * static_cast<int64_t>(height) > kMaxImagePixels)
        throw DatasetError(name, 16,
                           "a mask of " + std::to_string(width) + "x" + std::to_string(height) +
                               " pixels cannot be read");
    return {width, height, colourType == PNG_COLOR_TYPE_PALETTE};
}

void decodeMaskInto(std::span<const uint8_t> bytes, const std::string& name, ClassMask& out) {
    const MaskHeader header = readMaskHeader(bytes, name);
    out.width = header.width;
    out.height = header.height;
    out.classes.resize(static_cast<std::size_t>(header.width) *
                       static_cast<std::size_t>(header.height));
    PngFailure failure{};
    if (!decodeIndices(bytes.data(), bytes.size(), out.classes.data(), header.width, header.height,
                       failure))
        throw DatasetError(name, -1, std::string("cannot decode the mask: ") + failure.message);
}

const std::array<std::array<uint8_t, 3>, 256>& vocPalette() {
    static const auto kPalette = [] {
        std::array<std::array<uint8_t, 3>, 256> p{};
        for (int i = 0; i < 256; ++i) {
            int c = i;
            int rgb[3] = {0, 0, 0};
            for (int bit = 7; bit >= 0; --bit, c >>= 3)
                for (int ch = 0; ch < 3; ++ch)
                    rgb[ch] |= ((c >> ch) & 1) << bit;
            for (int ch = 0; ch < 3; ++ch)
                p[static_cast<std::size_t>(i)][static_cast<std::size_t>(ch)] =
                    static_cast<uint8_t>(rgb[ch]);
        }
        return p;
    }();
    return kPalette;
}

void writeMaskPng(const std::string& path, const ClassMask& mask) {
    if (mask.classes.size() !=
        static_cast<std::size_t>(mask.width) * static_cast<std::size_t>(mask.height))
        throw Error("writeMaskPng: the mask's classes do not match its size");
    png_image image;
    std::memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = static_cast<png_uint_32>(mask.width);
    image.height = static_cast<png_uint_32>(mask.height);
    image.format = PNG_FORMAT_RGB_COLORMAP;
    image.colormap_entries = 256;
    std::vector<uint8_t> colormap;
    colormap.reserve(256 * 3);
    for (const auto& rgb : vocPalette())
        colormap.insert(colormap.end(), rgb.begin(), rgb.end());
    if (!png_image_write_to_file(&image, path.c_str(), 0, mask.classes.data(), 0, colormap.data()))
        throw Error("cannot write " + path + ": " + image.message);
}

} // namespace tb

// libpng (simplified API) and libjpeg (setjmp error handling) wrappers.
#include "data/imagecodec.h"

#include "core/errors.h"
#include "core/hostmemory.h"
#include "core/regularfile.h"

#include <png.h>
// jpeglib.h needs FILE and size_t declared first.
#include <cstdio>
#include <jpeglib.h>

#include <csetjmp>
#include <cstring>
#include <fstream>

namespace tb {

namespace {

struct JpegError {
    jpeg_error_mgr mgr;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

void jpegErrorExit(j_common_ptr cinfo) {
    auto* err = reinterpret_cast<JpegError*>(cinfo->err);
    (*cinfo->err->format_message)(cinfo, err->message);
    std::longjmp(err->jump, 1);
}

void jpegSilence(j_common_ptr, int) {}

// Decodes into *out. No automatic object with a destructor lives in this frame, so the
// longjmp from libjpeg's error handler skips nothing that needs cleaning up. Returns false
// and fills *message / *offset on error.
bool decodeJpeg(const uint8_t* data, std::size_t size, RgbImage* out, std::string* message,
                int64_t* offset) {
    jpeg_decompress_struct cinfo;
    JpegError err;
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = jpegErrorExit;
    err.mgr.emit_message = jpegSilence;
    if (setjmp(err.jump)) {
        *offset = cinfo.src ? static_cast<int64_t>(size - cinfo.src->bytes_in_buffer) : -1;
        message->assign(err.message);
        jpeg_destroy_decompress(&cinfo);
        return false;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
    jpeg_read_header(&cinfo, TRUE);
    if (static_cast<int64_t>(cinfo.image_width) * cinfo.image_height > kMaxImagePixels) {
        message->assign("image is too large to decode");
        *offset = 0;
        jpeg_destroy_decompress(&cinfo);
        return false;
    }
    cinfo.out_color_space = JCS_RGB; // grey is expanded; CMYK makes libjpeg raise an error
    jpeg_start_decompress(&cinfo);
    out->width = static_cast<int>(cinfo.output_width);
    out->height = static_cast<int>(cinfo.output_height);
    out->pixels.resize(static_cast<std::size_t>(out->width) * out->height * 3);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row =
            out->pixels.data() + static_cast<std::size_t>(cinfo.output_scanline) * out->width * 3;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return true;
}

RgbImage decodePng(std::span<const uint8_t> bytes, const std::string& name) {
    png_image image;
    std::memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, bytes.data(), bytes.size()))
        throw DatasetError(name, -1, std::string("cannot decode PNG: ") + image.message);
    if (static_cast<int64_t>(image.width) * image.height > kMaxImagePixels) {
        png_image_free(&image);
        throw DatasetError(name, 16, "image is too large to decode");
    }
    image.format = PNG_FORMAT_RGB;
    RgbImage out;
    out.width = static_cast<int>(image.width);
    out.height = static_cast<int>(image.height);
    out.pixels.resize(PNG_IMAGE_SIZE(image));
    if (!png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr))
        throw DatasetError(name, -1, std::string("cannot decode PNG: ") + image.message);
    return out;
}

} // namespace

RgbImage decodeImage(std::span<const uint8_t> bytes, const std::string& name) {
    static const uint8_t kPng[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};
    if (bytes.size() >= 8 && std::memcmp(bytes.data(), kPng, 8) == 0)
        return decodePng(bytes, name);
    if (bytes.size() >= 3 && bytes[0] == 0xff && bytes[1] == 0xd8 && bytes[2] == 0xff) {
        RgbImage out;
        std::string message;
        int64_t offset = -1;
        if (!decodeJpeg(bytes.data(), bytes.size(), &out, &message, &offset))
            throw DatasetError(name, offset, "cannot decode JPEG: " + message);
        return out;
    }
    throw DatasetError(name, 0, "not a PNG or JPEG image");
}

std::vector<uint8_t> readWholeFile(const std::string& path) {
    const uint64_t size = regularFileSize(path);
    // Only large files are worth reading /proc for; an ImageFolder reads one image per sample.
    constexpr uint64_t kCheckMemoryAbove = uint64_t{64} << 20;
    if (const auto memory = size > kCheckMemoryAbove ? hostMemory() : std::nullopt;
        memory && size > memory->available)
        throw DatasetError(path, -1,
                           "the file is " + formatBytes(size) + ", more than the " +
                               formatBytes(memory->available) + " of memory available to read it");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw DatasetError(path, -1, "cannot open the file");
    std::vector<uint8_t> bytes(static_cast<std::size_t>(size));
    if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
        throw DatasetError(path, -1, "cannot read the file");
    return bytes;
}

void writePng(const std::string& path, int width, int height, int channels,
              const std::vector<uint8_t>& pixels) {
    png_image image;
    std::memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = static_cast<png_uint_32>(width);
    image.height = static_cast<png_uint_32>(height);
    image.format = channels == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
    if (pixels.size() != static_cast<std::size_t>(width) * height * channels)
        throw Error("writePng: pixel buffer does not match the size");
    if (!png_image_write_to_file(&image, path.c_str(), 0, pixels.data(), 0, nullptr))
        throw Error("cannot write " + path + ": " + image.message);
}

} // namespace tb

// libpng (simplified API) and libjpeg (setjmp error handling) wrappers.
#include "data/imagecodec.h"

#include "core/errors.h"
#include "core/hostmemory.h"
#include "core/regularfile.h"

#include <png.h>
// jpeglib.h needs FILE and size_t declared first.
#include <cstdio>
#include <jpeglib.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csetjmp>
#include <cstring>

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

// libjpeg's errors longjmp back to err.jump with their text in err.message; warnings are dropped.
jpeg_error_mgr* routeErrors(JpegError& err) {
    jpeg_std_error(&err.mgr);
    err.mgr.error_exit = jpegErrorExit;
    err.mgr.emit_message = jpegSilence;
    return &err.mgr;
}

// Decodes into *out. No automatic object with a destructor lives in this frame, so the
// longjmp from libjpeg's error handler skips nothing that needs cleaning up. Returns false
// and fills *message / *offset on error.
bool decodeJpeg(const uint8_t* data, std::size_t size, const DecodeScale* scale, RgbImage* out,
                std::string* message, int64_t* offset) {
    jpeg_decompress_struct cinfo;
    JpegError err;
    cinfo.err = routeErrors(err);
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
    out->storedWidth = static_cast<int>(cinfo.image_width);
    out->storedHeight = static_cast<int>(cinfo.image_height);
    if (*scale) {
        cinfo.scale_num = 1;
        cinfo.scale_denom = static_cast<unsigned>((*scale)(out->storedWidth, out->storedHeight));
    }
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

void decodePng(std::span<const uint8_t> bytes, const std::string& name, const DecodeScale& scale,
               RgbImage& out) {
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
    out.width = out.storedWidth = static_cast<int>(image.width);
    out.height = out.storedHeight = static_cast<int>(image.height);
    if (scale)
        scale(out.width, out.height); // told the size; a PNG has no cheaper scale to offer
    out.pixels.resize(PNG_IMAGE_SIZE(image));
    if (!png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr))
        throw DatasetError(name, -1, std::string("cannot decode PNG: ") + image.message);
}

// Encodes into an open file. As decodeJpeg, no object with a destructor lives in this frame.
bool encodeJpeg(std::FILE* f, int width, int height, int channels, const uint8_t* pixels,
                int quality, std::string* message) {
    jpeg_compress_struct cinfo;
    JpegError err;
    cinfo.err = routeErrors(err);
    if (setjmp(err.jump)) {
        message->assign(err.message);
        jpeg_destroy_compress(&cinfo);
        return false;
    }
    jpeg_create_compress(&cinfo);
    jpeg_stdio_dest(&cinfo, f);
    cinfo.image_width = static_cast<JDIMENSION>(width);
    cinfo.image_height = static_cast<JDIMENSION>(height);
    cinfo.input_components = channels;
    cinfo.in_color_space = channels == 3 ? JCS_RGB : JCS_GRAYSCALE;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        auto* row = const_cast<JSAMPLE*>(pixels + static_cast<std::size_t>(cinfo.next_scanline) *
                                                      width * channels);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    return true;
}

} // namespace

int dctScaleFor(float cropWidth, float cropHeight, int size) {
    int denominator = 1;
    while (denominator < 8 &&
           std::min(cropWidth, cropHeight) / static_cast<float>(2 * denominator) >=
               static_cast<float>(size))
        denominator *= 2;
    return denominator;
}

void decodeImageInto(std::span<const uint8_t> bytes, const std::string& name, RgbImage& out,
                     const DecodeScale& scale) {
    static const uint8_t kPng[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};
    if (bytes.size() >= 8 && std::memcmp(bytes.data(), kPng, 8) == 0)
        return decodePng(bytes, name, scale, out);
    if (bytes.size() >= 3 && bytes[0] == 0xff && bytes[1] == 0xd8 && bytes[2] == 0xff) {
        std::string message;
        int64_t offset = -1;
        if (!decodeJpeg(bytes.data(), bytes.size(), &scale, &out, &message, &offset))
            throw DatasetError(name, offset, "cannot decode JPEG: " + message);
        return;
    }
    throw DatasetError(name, 0, "not a PNG or JPEG image");
}

bool isDecodableImageName(const std::string& path) {
    const std::size_t dot = path.rfind('.');
    if (dot == std::string::npos || path.find('/', dot) != std::string::npos)
        return false;
    std::string ext = path.substr(dot);
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".png" || ext == ".jpg" || ext == ".jpeg";
}

std::pair<int, int> storedImageSize(std::span<const uint8_t> bytes, const std::string& name) {
    auto be16 = [&](std::size_t at) { return bytes[at] << 8 | bytes[at + 1]; };
    static const uint8_t kPng[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};
    if (bytes.size() >= 24 && std::memcmp(bytes.data(), kPng, 8) == 0) // IHDR comes first
        return {be16(16) << 16 | be16(18), be16(20) << 16 | be16(22)};
    if (bytes.size() >= 3 && bytes[0] == 0xff && bytes[1] == 0xd8) {
        // Markers until a start of frame (SOF0-15 but DHT C4, JPG C8 and DAC CC): precision,
        // then height and width.
        for (std::size_t at = 2; at + 9 <= bytes.size();) {
            if (bytes[at] != 0xff)
                break;
            const uint8_t marker = bytes[at + 1];
            if (marker == 0xff) {
                ++at; // fill byte
                continue;
            }
            if (marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 &&
                marker != 0xcc)
                return {be16(at + 7), be16(at + 5)};
            at += 2 + static_cast<std::size_t>(be16(at + 2));
        }
        throw DatasetError(name, -1, "a JPEG without a frame header");
    }
    throw DatasetError(name, 0, "not a PNG or JPEG image");
}

RgbImage decodeImage(std::span<const uint8_t> bytes, const std::string& name) {
    RgbImage out;
    decodeImageInto(bytes, name, out);
    return out;
}

std::vector<uint8_t> readWholeFile(const std::string& path) {
    std::vector<uint8_t> bytes;
    readWholeFileInto(path, bytes);
    return bytes;
}

void readWholeFileInto(const std::string& path, std::vector<uint8_t>& bytes) {
    const uint64_t size = regularFileSize(path);
    // Only large files are worth reading /proc for; an ImageFolder reads one image per sample.
    constexpr uint64_t kCheckMemoryAbove = uint64_t{64} << 20;
    if (const auto memory = size > kCheckMemoryAbove ? hostMemory() : std::nullopt;
        memory && size > memory->available)
        throw DatasetError(path, -1,
                           "the file is " + formatBytes(size) + ", more than the " +
                               formatBytes(memory->available) + " of memory available to read it");
    // open/read rather than a stream: nothing is allocated once `bytes` has grown to the largest
    // file read.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw DatasetError(path, -1, std::string("cannot open the file: ") + std::strerror(errno));
    bytes.resize(static_cast<std::size_t>(size));
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const std::string why = n < 0 ? std::strerror(errno) : "it ended early";
            ::close(fd);
            throw DatasetError(path, static_cast<int64_t>(done), "cannot read the file: " + why);
        }
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
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

void writeJpeg(const std::string& path, int width, int height, int channels,
               const std::vector<uint8_t>& pixels, int quality) {
    if ((channels != 1 && channels != 3) ||
        pixels.size() != static_cast<std::size_t>(width) * height * channels)
        throw Error("writeJpeg: pixel buffer does not match the size");
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        throw Error("cannot write " + path + ": " + std::strerror(errno));
    std::string message;
    const bool encoded = encodeJpeg(f, width, height, channels, pixels.data(), quality, &message);
    const bool closed = std::fclose(f) == 0;
    if (!encoded || !closed)
        throw Error("cannot write " + path + ": " + (encoded ? std::strerror(errno) : message));
}

} // namespace tb

// Writers for the small PNG and JPEG files the ImageFolder tests put into temporary folders.
#pragma once

#include "data/imagecodec.h"

#include <cstdio>
#include <jpeglib.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace tb::test {

// A width x height PNG where every pixel is rgb (channels 3) or grey (channels 1).
inline void writeSolidPng(const std::string& path, int width, int height, int channels,
                          std::vector<uint8_t> colour) {
    std::vector<uint8_t> px;
    for (int i = 0; i < width * height; ++i)
        px.insert(px.end(), colour.begin(), colour.begin() + channels);
    writePng(path, width, height, channels, px);
}

// A grey JPEG with a horizontal gradient.
inline void writeGreyJpeg(const std::string& path, int width, int height) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        throw std::runtime_error("cannot write " + path);
    jpeg_compress_struct c;
    jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    jpeg_stdio_dest(&c, f);
    c.image_width = static_cast<JDIMENSION>(width);
    c.image_height = static_cast<JDIMENSION>(height);
    c.input_components = 1;
    c.in_color_space = JCS_GRAYSCALE;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 95, TRUE);
    jpeg_start_compress(&c, TRUE);
    std::vector<uint8_t> row(static_cast<std::size_t>(width));
    for (int x = 0; x < width; ++x)
        row[static_cast<std::size_t>(x)] = static_cast<uint8_t>(x * 255 / std::max(width - 1, 1));
    while (c.next_scanline < c.image_height) {
        JSAMPROW r = row.data();
        jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    std::fclose(f);
}

// An RGB image with red rising left to right and green top to bottom (blue 128): a linear ramp
// each way, which any interpolating resize keeps linear, so two resizes of it differ only where
// their geometry does. As a PNG, or a JPEG of quality 95 when the name ends in .jpg.
inline void writeRgbRamp(const std::string& path, int width, int height) {
    std::vector<uint8_t> px;
    px.reserve(static_cast<std::size_t>(width) * height * 3);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            px.push_back(static_cast<uint8_t>(x * 255 / std::max(width - 1, 1)));
            px.push_back(static_cast<uint8_t>(y * 255 / std::max(height - 1, 1)));
            px.push_back(128);
        }
    if (!path.ends_with(".jpg")) {
        writePng(path, width, height, 3, px);
        return;
    }
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        throw std::runtime_error("cannot write " + path);
    jpeg_compress_struct c;
    jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    jpeg_stdio_dest(&c, f);
    c.image_width = static_cast<JDIMENSION>(width);
    c.image_height = static_cast<JDIMENSION>(height);
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 95, TRUE);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW r = px.data() + static_cast<std::size_t>(c.next_scanline) * width * 3;
        jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    std::fclose(f);
}

} // namespace tb::test

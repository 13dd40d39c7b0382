// Writers for the small PNG and JPEG files the ImageFolder tests put into temporary folders.
#pragma once

#include "data/imagecodec.h"

#include <algorithm>
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

// A grey JPEG (quality 95) with a horizontal gradient.
inline void writeGreyJpeg(const std::string& path, int width, int height) {
    std::vector<uint8_t> px;
    px.reserve(static_cast<std::size_t>(width) * height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            px.push_back(static_cast<uint8_t>(x * 255 / std::max(width - 1, 1)));
    writeJpeg(path, width, height, 1, px, 95);
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
    if (path.ends_with(".jpg"))
        writeJpeg(path, width, height, 3, px, 95);
    else
        writePng(path, width, height, 3, px);
}

} // namespace tb::test

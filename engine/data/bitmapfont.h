// Text drawn into 8-bit RGB pixels with a built-in 5x7 font (capitals, digits and a little
// punctuation; lower case drawn as capitals, anything else as '?'), for the class names on
// sample grids the CLI writes without a GUI toolkit. Qt draws the window's text.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace tb {

inline constexpr int kGlyphWidth = 5, kGlyphHeight = 7, kGlyphAdvance = 6;

// Pixels `text` takes at `scale` (each font pixel scale x scale).
int textWidth(std::string_view text, int scale = 1);

// Draws `text` with its top-left at (x, y) into rgb (height x width x 3), clipped to it.
void drawText(std::vector<uint8_t>& rgb, int width, int height, int x, int y, std::string_view text,
              const uint8_t colour[3], int scale = 1);

} // namespace tb

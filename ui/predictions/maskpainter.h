// Masks laid over images for the window: each class in VOC's colour at a chosen opacity (the
// background and ignored pixels left as they are), scaled to the size the view shows with
// pixels kept sharp (a 32 px scene is drawn as blocks, not blurred), and a legend that names
// the colours.
#pragma once

#include "data/imagecodec.h"
#include "data/maskcodec.h"

#include <QImage>
#include <QString>

#include <string>
#include <vector>

namespace tb::ui {

// `image` with `mask` (the image's size; null: none) at `opacity` (0 to 1), scaled to fit
// side x side.
QImage paintMask(const RgbImage& image, const ClassMask* mask, float opacity, int side);

// Rich text: a square of each class's colour and its name (class 0, the background, left out).
QString maskLegend(const std::vector<std::string>& classNames);

} // namespace tb::ui

// Boxes drawn over an image for the window: a set's true boxes dashed, a detector's boxes solid
// in their class's colour with "name 0.87" on a filled tab, as Ultralytics' plots draw them, at
// the size the view shows (text and lines stay legible however small the image is).
#pragma once

#include "data/labeledimage.h"
#include "train/detector.h"

#include <QImage>

#include <string>
#include <vector>

namespace tb::ui {

QImage toQImage(const RgbImage& image);
// Any image Qt reads, as 8-bit RGB (what the models take).
RgbImage fromQImage(const QImage& image);

// `image` scaled to fit side x side (aspect kept), with `truth` (pixels of the image) dashed and
// the `detections` of at least `minConfidence` solid; names from `classNames`.
QImage paintDetections(const RgbImage& image, const std::vector<LabeledBox>& truth,
                       const std::vector<DetectedBox>& detections,
                       const std::vector<std::string>& classNames, float minConfidence, int side);
// A set's own view: its boxes solid in their classes' colours, named.
QImage paintLabels(const RgbImage& image, const std::vector<LabeledBox>& boxes,
                   const std::vector<std::string>& classNames, int side);

// The colour of class c's boxes (the charts' series colours).
QColor boxColor(int classIndex);

} // namespace tb::ui

// What the Predictions tab's image galleries share (DetectionGallery, SegmentationGallery): the
// status line that names the model or, in red, why there is none; the grid of thumbnails; and
// reading an image file for Try it as photo viewers show it.
#pragma once

#include "data/imagecodec.h"

#include <QString>

#include <optional>

class QLabel;
class QListWidget;
class QWidget;

namespace tb::ui {

// A word-wrapped, selectable status line showing `text`.
QLabel* makeGalleryStatus(QWidget* parent, const QString& objectName, const QString& text);
// The status line's text: plain (`failure` false) or in the error colour.
void setGalleryStatus(QLabel* status, const QString& text, bool failure = false);

// An icon grid of side x side thumbnails with a caption line under each.
QListWidget* makeThumbnailGrid(QWidget* parent, const QString& objectName,
                               const QString& accessibleName, int side);

// The image at `path` (a photo turned upright by its EXIF orientation) as 8-bit RGB; none, with
// `error` saying why ("Cannot open x.png: ..."), for a file that is not an image.
std::optional<RgbImage> readTryItImage(const QString& path, QString& error);

} // namespace tb::ui

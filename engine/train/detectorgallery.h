// The window's view of what a detector sees: the first validation images of its run, each with
// its true boxes and every detection down to a low confidence, so that a view can filter them by
// a confidence threshold live without running the model again.
#pragma once

#include "data/labeledimage.h"
#include "train/detector.h"

#include <string>
#include <vector>

namespace tb {

struct GalleryImage {
    std::string name; // the image's file in its set ("images/val/7.jpg")
    RgbImage image;
    std::vector<LabeledBox> truth;       // in the image's pixels
    std::vector<DetectedBox> detections; // in the image's pixels, best first
};

// Detections below this confidence are never kept (a threshold slider starts above it).
inline constexpr float kGalleryMinConfidence = 0.05f;

// `count` images (fewer when the split has fewer) of the validation split of the run `detector`
// was trained by, detected in batches of 8. Throws what the dataset readers throw.
std::vector<GalleryImage> detectorGallery(Detector& detector, int count);

} // namespace tb

// detectorGallery(): the validation split opened from the checkpoint's config, as evaluate
// opens it, and its images decoded as they are (not letterboxed): the boxes come back in their
// pixels, as predict prints them.
#include "train/detectorgallery.h"

#include "data/datasets.h"
#include "data/detectiondataset.h"

#include <algorithm>

namespace tb {

std::vector<GalleryImage> detectorGallery(Detector& detector, int count) {
    const DatasetSplits data = openDatasets(detector.config().data, detector.config().seed);
    const auto& validation = dynamic_cast<const DetectionDataset&>(*data.validation);
    const int64_t n = std::min<int64_t>(count, validation.size());
    std::vector<GalleryImage> out;
    constexpr int64_t kBatch = 8;
    for (int64_t first = 0; first < n; first += kBatch) {
        std::vector<RgbImage> batch;
        for (int64_t i = first; i < std::min(n, first + kBatch); ++i) {
            LabeledImage labeled = validation.source().load(i);
            batch.push_back(labeled.image);
            out.push_back({validation.source().imageName(i),
                           std::move(labeled.image),
                           std::move(labeled.boxes),
                           {}});
        }
        auto found = detector.detect(batch, predictionNms(kGalleryMinConfidence));
        for (std::size_t k = 0; k < found.size(); ++k)
            out[static_cast<std::size_t>(first) + k].detections = std::move(found[k]);
    }
    return out;
}

} // namespace tb

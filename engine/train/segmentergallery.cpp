// segmenterGallery(): the validation split opened from the checkpoint's config, its images and
// masks decoded as they are (not resized), the prediction brought to the image's size as
// predict brings it.
#include "train/segmentergallery.h"

#include "data/rawsplits.h"
#include "data/segmentationdataset.h"
#include "segment/segmentationconfusion.h"

#include <algorithm>

namespace tb {

namespace {

double imageMeanIoU(const ClassMask& truth, const ClassMask& predicted, int classes) {
    segment::SegmentationConfusion confusion(classes, kMaskIgnore);
    const std::vector<int32_t> labels(truth.classes.begin(), truth.classes.end());
    const std::vector<int32_t> answers(predicted.classes.begin(), predicted.classes.end());
    confusion.add(labels.data(), answers.data(), static_cast<int64_t>(labels.size()));
    return confusion.scores().meanIoU;
}

} // namespace

std::vector<SegmentedGalleryImage>
segmenterGallery(Segmenter& segmenter, const std::vector<int64_t>& indices, int count) {
    const RunConfig& config = segmenter.config();
    const RawSplits data = openRawSplits(config.data, config.seed);
    const auto& validation = dynamic_cast<const SegmentationDataset&>(*data.validation);
    const SegmentationSource& source = validation.source();
    std::vector<int64_t> chosen;
    for (int64_t i : indices)
        if (i >= 0 && i < source.size() && std::ssize(chosen) < count)
            chosen.push_back(i);
    for (int64_t i = 0; indices.empty() && i < std::min<int64_t>(count, source.size()); ++i)
        chosen.push_back(i);
    const auto classes = static_cast<int>(segmenter.classNames().size());
    std::vector<SegmentedGalleryImage> out;
    // Small batches: it runs beside a training run, and a large model's images are large.
    constexpr std::size_t kBatch = 4;
    for (std::size_t first = 0; first < chosen.size(); first += kBatch) {
        std::vector<RgbImage> batch;
        for (std::size_t k = first; k < std::min(chosen.size(), first + kBatch); ++k) {
            SegmentedImage scene;
            source.load(chosen[k], scene);
            batch.push_back(scene.image);
            SegmentedGalleryImage& image = out.emplace_back();
            image.name = source.imageName(chosen[k]);
            image.index = chosen[k];
            image.image = std::move(scene.image);
            image.truth = std::move(scene.mask);
        }
        auto answers = segmenter.segment(batch);
        for (std::size_t k = 0; k < answers.size(); ++k) {
            SegmentedGalleryImage& image = out[first + k];
            image.predicted = std::move(answers[k].mask);
            image.meanIoU = imageMeanIoU(image.truth, image.predicted, classes);
        }
    }
    return out;
}

} // namespace tb

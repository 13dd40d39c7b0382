// openSegmentationSplits(): the segmentation families (shapes-seg, voc, masks) as train and
// validation SegmentationDatasets at data.image_size, the training split augmented when
// data.augment is on.
#include "backend/kernels/random_math.h"
#include "core/errors.h"
#include "data/rawsplits.h"
#include "data/segmentationdataset.h"
#include "data/segmentationfiles.h"
#include "data/shapesseg.h"

#include <cmath>

namespace tb {

RawSplits openSegmentationSplits(const DataConfig& config, uint64_t seed) {
    const int size = config.imageSize;
    std::shared_ptr<const SegmentationSource> train, validation;
    if (config.name == "shapes-seg") {
        const int64_t n = config.syntheticSamples;
        const int64_t nVal = std::max<int64_t>(
            1, static_cast<int64_t>(std::llround(static_cast<double>(n) * config.valFraction)));
        // The scenes are drawn at the input size: nothing is resampled.
        train = std::make_shared<ShapesSegSource>(
            n, size, math::mix64(seed, 1), "shapes-seg train (" + std::to_string(n) + " images)");
        validation = std::make_shared<ShapesSegSource>(nVal, size, math::mix64(seed, 2),
                                                       "shapes-seg validation (" +
                                                           std::to_string(nVal) + " images)");
    } else if (config.root.empty()) {
        throw ConfigError("data.root", config.name == "voc"
                                           ? "the VOC folder (VOC2012, VOCdevkit or the folder "
                                             "holding VOCdevkit)"
                                           : "the folder holding images/, masks/ and classes.txt");
    } else if (config.name == "voc") {
        train = openVocSegmentation(config.root, "train");
        validation = openVocSegmentation(config.root, "val");
    } else {
        const MaskFolderSplits s = openMaskFolders(config.root, config.valFraction, seed);
        train = s.train;
        validation = s.validation;
    }
    if (train->classNames() != validation->classNames())
        throw DatasetError(config.root, -1, "the train and val splits name different classes");
    RawSplits s;
    s.train = std::make_shared<SegmentationDataset>(train, size, config.augment);
    s.validation = std::make_shared<SegmentationDataset>(validation, size, false);
    // Channel statistics from whole images, not augmented crops (padding would pull them down).
    if (config.augment)
        s.statsSource = std::make_shared<SegmentationDataset>(train, size, false);
    s.statsSamples = 512;
    for (const auto* source : {train.get(), validation.get()})
        s.warnings.insert(s.warnings.end(), source->warnings().begin(), source->warnings().end());
    return s;
}

} // namespace tb

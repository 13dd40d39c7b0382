// openDetectionSplits(): the detection families (shapes-detect, yolo, coco) as train and
// validation DetectionDatasets at the configured input size.
#include "backend/kernels/random_math.h"
#include "core/errors.h"
#include "data/detectiondataset.h"
#include "data/detectionfiles.h"
#include "data/rawsplits.h"
#include "data/shapesdetect.h"

#include <cmath>

namespace tb {

namespace {

void checkAugment(const DetectAugmentOptions& o) {
    auto fraction = [](const char* key, float v, float hi) {
        if (!(v >= 0.0f && v <= hi))
            throw ConfigError(key, "must be between 0 and " + std::to_string(hi).substr(0, 3));
    };
    fraction("data.hsv_h", o.hsvH, 1.0f);
    fraction("data.hsv_s", o.hsvS, 1.0f);
    fraction("data.hsv_v", o.hsvV, 1.0f);
    fraction("data.translate", o.translate, 0.5f);
    fraction("data.scale", o.scale, 0.9f);
    fraction("data.fliplr", o.fliplr, 1.0f);
    fraction("data.mosaic", o.mosaic, 1.0f);
}

} // namespace

RawSplits openDetectionSplits(const DataConfig& config, uint64_t seed) {
    const int size = inputSizeOf(config);
    if (size < kMinDetectSize || size > kMaxDetectSize || size % kDetectStride != 0)
        throw ConfigError("data.imgsz", "must be a multiple of " + std::to_string(kDetectStride) +
                                            " from " + std::to_string(kMinDetectSize) + " to " +
                                            std::to_string(kMaxDetectSize));
    checkAugment(config.detectAugment);
    std::shared_ptr<const DetectionSource> train, validation;
    if (config.name == "shapes-detect") {
        const int64_t n = config.syntheticSamples;
        const int64_t nVal = std::max<int64_t>(
            1, static_cast<int64_t>(std::llround(static_cast<double>(n) * config.valFraction)));
        train = std::make_shared<ShapesDetectSource>(n, size, math::mix64(seed, 1),
                                                     "shapes-detect train (" + std::to_string(n) +
                                                         " images)");
        validation = std::make_shared<ShapesDetectSource>(nVal, size, math::mix64(seed, 2),
                                                          "shapes-detect validation (" +
                                                              std::to_string(nVal) + " images)");
    } else if (config.root.empty()) {
        throw ConfigError("data.root", config.name == "yolo"
                                           ? "the dataset's data.yaml (or its folder)"
                                           : "the COCO folder (annotations/, images) or its "
                                             "instances JSON");
    } else if (config.name == "yolo") {
        train = openYoloSplit(config.root, "train");
        validation = openYoloSplit(config.root, "val");
    } else {
        train = openCocoSplit(config.root, "train");
        validation = openCocoSplit(config.root, "val");
    }
    if (train->classNames() != validation->classNames())
        throw DatasetError(config.root, -1, "the train and val splits name different classes");
    RawSplits s;
    s.train = std::make_shared<DetectionDataset>(train, size, true, config.detectAugment);
    s.validation = std::make_shared<DetectionDataset>(validation, size, false);
    for (const auto* source : {train.get(), validation.get()})
        s.warnings.insert(s.warnings.end(), source->warnings().begin(), source->warnings().end());
    return s;
}

} // namespace tb

// openDatasets(): picks the reader family for a name, then adds augmentation and normalisation.
#include "data/datasets.h"

#include "core/errors.h"
#include "data/channelstats.h"
#include "data/rawsplits.h"
#include "data/transforms.h"

#include <functional>

namespace tb {

namespace {

struct Family {
    const char* name;
    const char* defaultRoot;
    std::function<RawSplits(const DataConfig&, uint64_t)> open;
};

const std::vector<Family>& families() {
    static const std::vector<Family> kFamilies = {
        {"fashion-mnist", "/usr/share/datasets/fashion-mnist",
         [](const DataConfig& c, uint64_t) { return openIdxSplits(c); }},
        {"mnist", "/usr/share/datasets/mnist",
         [](const DataConfig& c, uint64_t) { return openIdxSplits(c); }},
        {"cifar10", "/usr/share/datasets/cifar-10",
         [](const DataConfig& c, uint64_t) { return openCifarSplits(c); }},
        {"cifar100", "/usr/share/datasets/cifar-100",
         [](const DataConfig& c, uint64_t) { return openCifarSplits(c); }},
        {"imagefolder", "", openImageFolderSplits},
        {"csv", "", openCsvSplits},
        {"spirals", "", openSyntheticSplits},
        {"blobs", "", openSyntheticSplits},
        {"shapes", "", openSyntheticSplits},
        {"text", "/usr/share/games/fortunes", openTextSplits},
        {"shapes-detect", "", openDetectionSplits},
        {"yolo", "", openDetectionSplits},
        {"coco", "", openDetectionSplits},
        {"shapes-seg", "", openSegmentationSplits},
        {"voc", "", openSegmentationSplits},
        {"masks", "", openSegmentationSplits},
    };
    return kFamilies;
}

} // namespace

std::vector<std::string> datasetNames() {
    std::vector<std::string> names;
    for (const Family& f : families())
        names.emplace_back(f.name);
    return names;
}

std::string defaultDatasetRoot(const std::string& name) {
    for (const Family& f : families())
        if (name == f.name)
            return f.defaultRoot;
    return {};
}

RawSplits openRawSplits(const DataConfig& config, uint64_t seed) {
    const Family* family = nullptr;
    for (const Family& f : families())
        if (config.name == f.name)
            family = &f;
    if (!family) {
        std::string known;
        for (const std::string& n : datasetNames())
            known += (known.empty() ? "" : ", ") + n;
        throw ConfigError("dataset",
                          "unknown dataset " + quoteUserData(config.name) + "; known: " + known);
    }
    if (!isDetectionDataset(config.name) &&
        (config.imageSize < kMinImageSize || config.imageSize > kMaxImageSize))
        throw ConfigError("data.image_size", "must be between " + std::to_string(kMinImageSize) +
                                                 " and " + std::to_string(kMaxImageSize));
    if (!(config.valFraction >= 0.0 && config.valFraction < 1.0))
        throw ConfigError("data.val_fraction", "must be in [0, 1)");
    return family->open(config, seed);
}

std::string resolveNormStats(const DataConfig& config, const Shape& sample, bool pretrained) {
    // Token ids are not measurements; detectors take pixels in [0, 1] as Ultralytics feeds them.
    if (!config.normalize || config.name == "text" || isDetectionDataset(config.name))
        return {};
    const bool rgb = sample.rank() == 3 && sample[0] == 3;
    if (config.normStats == "imagenet" && !rgb)
        throw ConfigError("data.norm_stats", "ImageNet's statistics are for RGB images; " +
                                                 config.name + " samples are " + sample.toString() +
                                                 ": use dataset or auto");
    return config.normStats == "imagenet" || (config.normStats == "auto" && pretrained && rgb)
               ? "imagenet"
               : "dataset";
}

DatasetSplits openDatasets(const DataConfig& config, uint64_t seed, bool pretrained) {
    RawSplits raw = openRawSplits(config, seed);
    DatasetSplits out{raw.train, raw.validation, {}, {}, {}, raw.warnings};
    if (config.augment && raw.cropPadding > 0)
        out.train = std::make_shared<RandomCropFlipDataset>(out.train, raw.cropPadding, raw.flip);
    out.normStats = resolveNormStats(config, raw.train->sampleShape(), pretrained);
    if (out.normStats.empty())
        return out;
    if (out.normStats == "imagenet") {
        out.mean = kImageNetMean;
        out.stdDev = kImageNetStd;
    } else {
        const ChannelStats st = cachedChannelStats(raw.statsSource ? *raw.statsSource : *raw.train,
                                                   raw.statsKey, raw.statsSamples);
        out.mean = st.mean;
        out.stdDev = st.stdDev;
    }
    out.train = std::make_shared<NormalizeDataset>(out.train, out.mean, out.stdDev);
    out.validation = std::make_shared<NormalizeDataset>(out.validation, out.mean, out.stdDev);
    return out;
}

} // namespace tb

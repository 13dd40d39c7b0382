// pretrainedInputWarnings: the weights' own input, from the file's header or torchvision's recipe.
#include "train/pretrainedinput.h"

#include "core/errors.h"
#include "data/datasets.h"
#include "io/jsontext.h"
#include "io/safetensors.h"
#include "nn/yolozoo.h"

#include <optional>

namespace tb {

namespace {

struct TrainedInput {
    std::string source; // for the message: "torchvision's ImageNet weights", "run ID"
    int imageSide = 0;  // 0: not known
    std::string normStats;
};

// The side of the images a run's dataset gives (0 when not square images of a known size).
int imageSideOf(const DataConfig& data) {
    if (isDetectionDataset(data.name))
        return inputSizeOf(data);
    if (data.name == "imagefolder" || data.name == "shapes")
        return data.imageSize;
    if (data.name == "cifar10" || data.name == "cifar100")
        return 32;
    if (data.name == "mnist" || data.name == "fashion-mnist")
        return 28;
    return 0;
}

// A PyTorch file is torchvision's ImageNet classifier or, for a detector, Ultralytics' COCO one
// (images letterboxed to 640 px, pixels over 255 without normalisation); a safetensors file
// says what it learned from in its config, or else is taken for the same.
std::optional<TrainedInput> trainedInputOf(const std::string& path, const Shape& sample,
                                           bool detector) {
    const TrainedInput imageNet =
        detector ? TrainedInput{"Ultralytics' COCO weights", 640, ""}
                 : TrainedInput{"torchvision's ImageNet weights", 224, "imagenet"};
    if (!path.ends_with(".safetensors"))
        return imageNet;
    try {
        const auto metadata = readSafetensorsMetadata(path);
        const auto config = metadata.find("config");
        if (config == metadata.end())
            return imageNet;
        const RunConfig trained =
            RunConfig::fromJson(parseJson(config->second, path + ": metadata 'config'"));
        const auto run = metadata.find("run_id");
        return TrainedInput{
            "the weights of run " + (run == metadata.end() ? path : run->second),
            imageSideOf(trained.data),
            resolveNormStats(trained.data, sample,
                             !trained.modelOptions.value("pretrained", "").empty())};
    } catch (const Error&) {
        return std::nullopt; // loading the file reports what is wrong with it
    }
}

std::string describeStats(const std::string& stats) {
    return stats == "imagenet" ? "ImageNet's mean and std"
           : stats.empty()     ? "no normalisation"
                               : "their dataset's own mean and std";
}

} // namespace

std::vector<std::string> pretrainedInputWarnings(const RunConfig& config, const Shape& sample) {
    const std::string path = config.modelOptions.value("pretrained", "");
    if (path.empty() || sample.rank() != 3)
        return {};
    const std::optional<TrainedInput> trained =
        trainedInputOf(path, sample, isYoloV8(config.model));
    if (!trained)
        return {};
    std::vector<std::string> warnings;
    const int64_t side = sample[2];
    if (trained->imageSide > 0 &&
        (side * 4 < trained->imageSide * 3 || side * 3 > trained->imageSide * 4))
        warnings.push_back(
            trained->source + " learned from " + std::to_string(trained->imageSide) +
            " px images; this run gives them " + std::to_string(side) +
            " px, so their filters see objects at another scale" +
            (config.data.name == "imagefolder"
                 ? " (data.image_size=" + std::to_string(trained->imageSide) + " matches them)"
             : isDetectionDataset(config.data.name)
                 ? " (data.imgsz=" + std::to_string(trained->imageSide) + " matches them)"
                 : std::string()));
    std::string stats;
    try {
        stats = resolveNormStats(config.data, sample, true);
    } catch (const ConfigError&) {
        return warnings; // the data.norm_stats field shows that error
    }
    if (stats != trained->normStats)
        warnings.push_back(trained->source + " learned from inputs normalised with " +
                           describeStats(trained->normStats) + "; this run uses " +
                           describeStats(stats) + " (data.norm_stats=" + config.data.normStats +
                           ", data.normalize=" + (config.data.normalize ? "true" : "false") + ")");
    return warnings;
}

} // namespace tb

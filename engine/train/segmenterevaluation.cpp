// evaluateSegmenter: the trainer's segmentation validation on a loaded checkpoint.
#include "train/segmenterevaluation.h"

#include "core/errors.h"
#include "data/dataloader.h"
#include "data/datasets.h"
#include "train/segmentationvalidation.h"
#include "train/trainedmodel.h"

namespace tb {

SegmenterEvaluation evaluateSegmenter(const std::string& checkpoint, int64_t batch, int threads) {
    TrainedModel model(checkpoint, threads);
    if (!model.graph().pixelLogits())
        throw ConfigError("model", model.card().model + " does not score every pixel: evaluate "
                                                        "measures detectors and segmentation "
                                                        "models (runs compare classifiers)");
    const RunConfig& config = model.config();
    const bool pretrained = !config.modelOptions.value("pretrained", std::string()).empty();
    const DatasetSplits data = openDatasets(config.data, config.seed, pretrained);
    LoaderOptions lo;
    lo.batchSize = batch > 0 ? batch : config.batchSize;
    lo.shuffle = false;
    DataLoader loader(data.validation, lo, model.backend());
    Tensor deviceInputs, deviceLabels;
    EpochEvent epoch;
    std::stop_source never;
    std::stop_token token = never.get_token();
    validateSegmentation(model.backend(), model.graph(), loader, deviceInputs, deviceLabels, epoch,
                         token);
    SegmenterEvaluation out;
    out.checkpoint = checkpoint;
    out.imageSize = static_cast<int>(model.card().sampleShape[1]);
    out.loss = epoch.valLoss;
    out.report = std::move(*epoch.validation.segmentation);
    return out;
}

} // namespace tb

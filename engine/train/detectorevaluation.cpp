// evaluateDetector: the trainer's validation pass on a loaded checkpoint, and its COCO files.
#include "train/detectorevaluation.h"

#include "core/errors.h"
#include "data/dataloader.h"
#include "data/datasets.h"
#include "data/detectiondataset.h"
#include "train/trainedmodel.h"

namespace tb {

DetectorEvaluation evaluateDetector(const std::string& checkpoint, int64_t batch, int threads) {
    TrainedModel model(checkpoint, threads);
    const DetectOutput* head = model.graph().detectHead();
    if (!head)
        throw ConfigError("model", model.card().model + " is not a detector: evaluate measures "
                                                        "detectors (runs compare classifiers)");
    const DatasetSplits data = openDatasets(model.config().data, model.config().seed);
    const auto& validation = dynamic_cast<const DetectionDataset&>(*data.validation);
    DetectorEvaluation out;
    out.checkpoint = checkpoint;
    out.classNames = validation.classNames();
    out.imageSize = validation.imageSize();
    for (int64_t i = 0; i < validation.size(); ++i)
        out.imageNames.push_back(validation.source().imageName(i));
    LoaderOptions lo;
    lo.batchSize = batch;
    lo.shuffle = false;
    DataLoader loader(data.validation, lo, model.backend());
    DetectionObjective objective(*head, out.imageSize);
    Tensor staged;
    std::stop_token never;
    out.pass = *detectionPass(model.backend(), model.graph(), loader, objective, staged, never);
    out.report = reportOf(out.pass, out.classNames);
    return out;
}

nlohmann::json cocoGroundTruth(const DetectorEvaluation& e) {
    nlohmann::json images = nlohmann::json::array(), annotations = nlohmann::json::array(),
                   categories = nlohmann::json::array();
    for (std::size_t i = 0; i < e.imageNames.size(); ++i)
        images.push_back({{"id", i + 1},
                          {"file_name", e.imageNames[i]},
                          {"width", e.imageSize},
                          {"height", e.imageSize}});
    for (const detect::GroundTruth& g : e.pass.truth)
        annotations.push_back({{"id", annotations.size() + 1},
                               {"image_id", g.image + 1},
                               {"category_id", g.category + 1},
                               {"bbox", {g.box.x, g.box.y, g.box.w, g.box.h}},
                               {"area", g.box.area()},
                               {"iscrowd", g.crowd ? 1 : 0}});
    for (std::size_t k = 0; k < e.classNames.size(); ++k)
        categories.push_back({{"id", k + 1}, {"name", e.classNames[k]}});
    return {{"info",
             {{"description", "TrainBench validation split of " + e.checkpoint},
              {"coordinates",
               "network input pixels (letterboxed to " + std::to_string(e.imageSize) + " px)"}}},
            {"images", images},
            {"annotations", annotations},
            {"categories", categories}};
}

nlohmann::json cocoResults(const DetectorEvaluation& e) {
    nlohmann::json out = nlohmann::json::array();
    for (const detect::Detection& d : e.pass.detections)
        out.push_back({{"image_id", d.image + 1},
                       {"category_id", d.category + 1},
                       {"bbox", {d.box.x, d.box.y, d.box.w, d.box.h}},
                       {"score", d.score}});
    return out;
}

} // namespace tb

// validateDetection(): batches through the model, detections and boxes collected on the host,
// one COCO evaluation at the end.
#include "train/detectionvalidation.h"

#include "detect/cocoeval.h"
#include "detect/detectionconfusion.h"
#include "train/validation.h"

#include <numeric>

namespace tb {

namespace {

detect::Box cocoBox(float x1, float y1, float x2, float y2) {
    return {x1, y1, x2 - x1, y2 - y1};
}

// Precision and recall at the recall point where F1 is best on a 101-point curve (precision
// is 0 beyond the recall the detections reach).
std::pair<double, double> bestF1(const std::vector<double>& precision) {
    const std::vector<double>& recall = detect::cocoRecallPoints();
    double best = -1, p = 0, r = 0;
    for (std::size_t i = 0; i < precision.size() && i < recall.size(); ++i) {
        const double f1 = 2 * precision[i] * recall[i] / (precision[i] + recall[i] + 1e-16);
        if (f1 > best) {
            best = f1;
            p = precision[i];
            r = recall[i];
        }
    }
    return {p, r};
}

} // namespace

double fitnessOf(const EpochEvent& epoch) {
    if (const auto& d = epoch.validation.detection)
        return 0.1 * d->map50 + 0.9 * d->map5095;
    if (const auto& s = epoch.validation.segmentation)
        return s->meanIoU;
    return epoch.valAcc;
}

DetectionReport detectionReport(const detect::CocoEvalResult& result,
                                const std::vector<std::string>& classNames) {
    DetectionReport report;
    report.classNames = classNames;
    report.map50 = std::max(0.0, result.map50);
    report.map5095 = std::max(0.0, result.map5095);
    for (const detect::ClassResult& c : result.classes) {
        if (c.ap.empty())
            continue; // no ground truth: not in the means
        DetectionClassResult row;
        row.name = c.category < std::ssize(classNames)
                       ? classNames[static_cast<std::size_t>(c.category)]
                       : std::to_string(c.category);
        row.instances = c.groundTruths;
        row.ap50 = c.ap50();
        row.ap5095 = c.ap5095();
        std::tie(row.precision, row.recall) = bestF1(c.precision50);
        row.precision50 = c.precision50;
        report.instances += c.groundTruths;
        report.classes.push_back(std::move(row));
    }
    if (!report.classes.empty()) {
        const auto n = static_cast<double>(report.classes.size());
        for (const DetectionClassResult& c : report.classes) {
            report.precision += c.precision / n;
            report.recall += c.recall / n;
        }
    }
    return report;
}

std::optional<DetectionPass> detectionPass(Backend& backend, Graph& graph, DataLoader& loader,
                                           DetectionObjective& objective, Tensor& deviceInputs,
                                           std::stop_token& stop) {
    loader.startEpoch(0);
    DetectionPass pass;
    while (auto batch = loader.next()) {
        if (stop.stop_requested())
            return std::nullopt;
        const Tensor& x = stageOnDevice(backend, batch->inputs, deviceInputs);
        const Tensor& head = graph.forward(x, false);
        const detect::DetectionLossTerms terms = objective.loss(backend, head, batch->labels);
        pass.lossSum.box += terms.box;
        pass.lossSum.cls += terms.cls;
        pass.lossSum.dfl += terms.dfl;
        ++pass.batches;
        const auto detections = objective.detections(backend, head, detect::NmsOptions{});
        const int64_t n = batch->labels.dim(0), rows = batch->labels.dim(1);
        for (int64_t i = 0; i < n; ++i, ++pass.images) {
            const float* r = batch->labels.data<float>() + i * rows * kBoxColumns;
            for (int64_t k = 0; k < rows; ++k, r += kBoxColumns)
                if (r[0] >= 0)
                    pass.truth.push_back({pass.images, static_cast<int>(r[0]),
                                          cocoBox(r[1], r[2], r[3], r[4]), r[5] != 0.0f});
            for (const detect::ScoredBox& d : detections[static_cast<std::size_t>(i)])
                pass.detections.push_back({pass.images, d.category,
                                           cocoBox(d.box.x1, d.box.y1, d.box.x2, d.box.y2),
                                           d.score});
        }
    }
    return pass;
}

DetectionReport reportOf(const DetectionPass& pass, const std::vector<std::string>& classNames) {
    std::vector<int64_t> imageIds(static_cast<std::size_t>(pass.images));
    std::iota(imageIds.begin(), imageIds.end(), int64_t{0});
    std::vector<int> categories(classNames.size());
    std::iota(categories.begin(), categories.end(), 0);
    DetectionReport report = detectionReport(
        detect::evaluateCoco(pass.truth, pass.detections, imageIds, categories), classNames);
    const auto b = static_cast<double>(std::max<int64_t>(pass.batches, 1));
    report.boxLoss = pass.lossSum.box / b;
    report.clsLoss = pass.lossSum.cls / b;
    report.dflLoss = pass.lossSum.dfl / b;
    report.images = pass.images;
    report.confusion = detect::detectionConfusion(pass.truth, pass.detections,
                                                  static_cast<int>(classNames.size()));
    return report;
}

bool validateDetection(Backend& backend, Graph& graph, DataLoader& loader,
                       DetectionObjective& objective, Tensor& deviceInputs, EpochEvent& epoch,
                       std::stop_token& stop) {
    const std::optional<DetectionPass> pass =
        detectionPass(backend, graph, loader, objective, deviceInputs, stop);
    if (!pass)
        return false;
    DetectionReport report = reportOf(*pass, loader.dataset().classNames());
    epoch.valLoss = report.boxLoss + report.clsLoss + report.dflLoss;
    epoch.valAcc = report.map5095;
    epoch.validation = {};
    epoch.validation.detection = std::move(report);
    return true;
}

} // namespace tb

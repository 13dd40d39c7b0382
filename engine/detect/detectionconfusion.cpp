// detectionConfusion(): Ultralytics' matching (ConfusionMatrix.process_batch) per image. One
// difference, on purpose: Ultralytics forgets an image's unmatched detections when no pair in
// it overlaps enough; here every unmatched detection is a false positive.
#include "detect/detectionconfusion.h"

#include <algorithm>
#include <map>

namespace tb::detect {

namespace {

struct ImageBoxes {
    std::vector<const GroundTruth*> truth, crowd;
    std::vector<const Detection*> detections;
};

struct Pair {
    std::size_t truth, detection;
    double iou;
};

// Each detection keeps its best-overlapping box, then each box its best detection (numpy's
// unique over IoU-sorted rows, as Ultralytics writes it). Ties keep the lower index.
std::vector<Pair> oneToOne(std::vector<Pair> pairs) {
    const auto byIou = [](const Pair& a, const Pair& b) { return a.iou > b.iou; };
    std::stable_sort(pairs.begin(), pairs.end(), byIou);
    std::vector<Pair> bestPerDetection;
    for (const Pair& p : pairs)
        if (std::none_of(bestPerDetection.begin(), bestPerDetection.end(),
                         [&](const Pair& q) { return q.detection == p.detection; }))
            bestPerDetection.push_back(p);
    std::vector<Pair> out;
    for (const Pair& p : bestPerDetection)
        if (std::none_of(out.begin(), out.end(), [&](const Pair& q) { return q.truth == p.truth; }))
            out.push_back(p);
    return out;
}

} // namespace

std::vector<int64_t> detectionConfusion(const std::vector<GroundTruth>& truth,
                                        const std::vector<Detection>& detections, int classes,
                                        const ConfusionOptions& options) {
    const auto n = static_cast<std::size_t>(classes + 1);
    std::vector<int64_t> matrix(n * n, 0);
    const auto count = [&](int trueClass, int predicted) {
        if (trueClass >= 0 && trueClass <= classes && predicted >= 0 && predicted <= classes)
            ++matrix[static_cast<std::size_t>(trueClass) * n + static_cast<std::size_t>(predicted)];
    };
    std::map<int64_t, ImageBoxes> images;
    for (const GroundTruth& g : truth)
        (g.crowd ? images[g.image].crowd : images[g.image].truth).push_back(&g);
    for (const Detection& d : detections)
        if (d.score > options.confidence)
            images[d.image].detections.push_back(&d);

    for (const auto& [image, boxes] : images) {
        std::vector<Pair> pairs;
        for (std::size_t t = 0; t < boxes.truth.size(); ++t)
            for (std::size_t d = 0; d < boxes.detections.size(); ++d) {
                const double overlap = iou(boxes.truth[t]->box, boxes.detections[d]->box);
                if (overlap > options.iou)
                    pairs.push_back({t, d, overlap});
            }
        const std::vector<Pair> matches = oneToOne(std::move(pairs));
        std::vector<bool> truthMatched(boxes.truth.size()),
            detectionMatched(boxes.detections.size());
        for (const Pair& p : matches) {
            truthMatched[p.truth] = detectionMatched[p.detection] = true;
            count(boxes.truth[p.truth]->category, boxes.detections[p.detection]->category);
        }
        for (std::size_t t = 0; t < boxes.truth.size(); ++t)
            if (!truthMatched[t])
                count(boxes.truth[t]->category, classes); // missed
        for (std::size_t d = 0; d < boxes.detections.size(); ++d) {
            if (detectionMatched[d])
                continue;
            const bool inCrowd =
                std::any_of(boxes.crowd.begin(), boxes.crowd.end(), [&](const GroundTruth* c) {
                    return crowdOverlap(boxes.detections[d]->box, c->box) > options.iou;
                });
            if (!inCrowd)
                count(classes, boxes.detections[d]->category); // a false positive
        }
    }
    return matrix;
}

} // namespace tb::detect

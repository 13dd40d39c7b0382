// COCOeval for boxes (pycocotools/cocoeval.py: evaluateImg, then accumulate and summarize),
// step for step, including its orderings (stable sorts, so ties in score keep the order the
// detections came in) and its float details (numpy.linspace's thresholds, np.spacing(1) in the
// precision's denominator), so that the numbers agree with a COCO evaluator's exactly.
#include "detect/cocoeval.h"

#include "core/errors.h"

#include <algorithm>
#include <cfloat>
#include <map>
#include <numeric>
#include <set>
#include <string>

namespace tb::detect {

namespace {

// numpy.linspace(start, stop, num): start + i * step, the last exactly stop.
std::vector<double> linspace(double start, double stop, int num) {
    std::vector<double> values(static_cast<std::size_t>(num));
    const double step = (stop - start) / (num - 1);
    for (int i = 0; i < num; ++i)
        values[static_cast<std::size_t>(i)] = i * step + start;
    values.back() = stop;
    return values;
}

// One image and class after matching: its detections by score (capped), whether each matched
// and whether it is ignored at each threshold, and which ground truths are ignored.
struct ImageEval {
    std::vector<double> scores;
    std::vector<std::vector<char>> matched; // [threshold][detection]
    std::vector<std::vector<char>> ignored; // [threshold][detection]
    int64_t groundTruthsKept = 0;
};

ImageEval evaluateImage(const std::vector<const GroundTruth*>& truthIn,
                        const std::vector<const Detection*>& detectionsIn,
                        const CocoEvalOptions& options) {
    const auto outside = [&](double area) {
        return area < options.minArea || area > options.maxArea;
    };
    // Ground truths kept first, ignored (crowds, outside the area range) after.
    std::vector<const GroundTruth*> truth = truthIn;
    const auto ignoredTruth = [&](const GroundTruth* g) {
        return g->crowd || outside(g->area >= 0 ? g->area : g->box.area());
    };
    std::stable_sort(truth.begin(), truth.end(), [&](const GroundTruth* a, const GroundTruth* b) {
        return !ignoredTruth(a) && ignoredTruth(b);
    });
    std::vector<const Detection*> detections = detectionsIn;
    std::stable_sort(detections.begin(), detections.end(),
                     [](const Detection* a, const Detection* b) { return a->score > b->score; });
    if (detections.size() > static_cast<std::size_t>(options.maxDetections))
        detections.resize(static_cast<std::size_t>(options.maxDetections));

    const std::size_t nd = detections.size(), ng = truth.size();
    std::vector<double> overlaps(nd * ng);
    for (std::size_t d = 0; d < nd; ++d)
        for (std::size_t g = 0; g < ng; ++g)
            overlaps[d * ng + g] = truth[g]->crowd ? crowdOverlap(detections[d]->box, truth[g]->box)
                                                   : iou(detections[d]->box, truth[g]->box);

    ImageEval e;
    for (const Detection* d : detections)
        e.scores.push_back(d->score);
    for (const GroundTruth* g : truth)
        e.groundTruthsKept += ignoredTruth(g) ? 0 : 1;
    for (double threshold : cocoIouThresholds()) {
        std::vector<char> truthMatched(ng, 0), matched(nd, 0), ignored(nd, 0);
        for (std::size_t d = 0; d < nd; ++d) {
            double best = std::min(threshold, 1 - 1e-10);
            long m = -1;
            for (std::size_t g = 0; g < ng; ++g) {
                if (truthMatched[g] && !truth[g]->crowd)
                    continue; // taken, and only a crowd matches many
                // Matched to a kept ground truth already: the ignored ones after it cannot do
                // better for the score.
                if (m > -1 && !ignoredTruth(truth[static_cast<std::size_t>(m)]) &&
                    ignoredTruth(truth[g]))
                    break;
                if (overlaps[d * ng + g] < best)
                    continue;
                best = overlaps[d * ng + g];
                m = static_cast<long>(g);
            }
            if (m == -1)
                continue;
            ignored[d] = ignoredTruth(truth[static_cast<std::size_t>(m)]) ? 1 : 0;
            matched[d] = 1;
            truthMatched[static_cast<std::size_t>(m)] = 1;
        }
        // An unmatched detection outside the area range is not a false positive.
        for (std::size_t d = 0; d < nd; ++d)
            if (!matched[d] && outside(detections[d]->box.area()))
                ignored[d] = 1;
        e.matched.push_back(std::move(matched));
        e.ignored.push_back(std::move(ignored));
    }
    return e;
}

// accumulate() for one class: its detections over all images by score, precision made
// monotone and read at the recall points, per threshold.
void accumulateClass(const std::vector<ImageEval>& images, ClassResult& result) {
    std::vector<double> scores;
    std::vector<std::pair<std::size_t, std::size_t>> where; // (image, detection)
    int64_t kept = 0;
    for (std::size_t i = 0; i < images.size(); ++i) {
        kept += images[i].groundTruthsKept;
        for (std::size_t d = 0; d < images[i].scores.size(); ++d) {
            scores.push_back(images[i].scores[d]);
            where.emplace_back(i, d);
        }
    }
    result.groundTruths = kept;
    result.detections = static_cast<int64_t>(scores.size());
    if (kept == 0)
        return;
    std::vector<std::size_t> order(scores.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
    const auto& recallPoints = cocoRecallPoints();
    const std::size_t nd = order.size();
    for (std::size_t t = 0; t < cocoIouThresholds().size(); ++t) {
        std::vector<double> recall(nd), precision(nd);
        double tp = 0, fp = 0;
        for (std::size_t k = 0; k < nd; ++k) {
            const auto [image, d] = where[order[k]];
            if (!images[image].ignored[t][d]) {
                if (images[image].matched[t][d])
                    tp += 1;
                else
                    fp += 1;
            }
            recall[k] = tp / static_cast<double>(kept);
            precision[k] = tp / (fp + tp + DBL_EPSILON);
        }
        for (std::size_t k = nd; k-- > 1;)
            precision[k - 1] = std::max(precision[k - 1], precision[k]);
        std::vector<double> atRecall(recallPoints.size(), 0.0);
        for (std::size_t r = 0; r < recallPoints.size(); ++r) {
            const auto first = std::lower_bound(recall.begin(), recall.end(), recallPoints[r]);
            if (first != recall.end())
                atRecall[r] = precision[static_cast<std::size_t>(first - recall.begin())];
        }
        double sum = 0;
        for (double p : atRecall)
            sum += p;
        result.ap.push_back(sum / static_cast<double>(atRecall.size()));
        if (t == 0) {
            result.precision50 = atRecall;
            result.recall50 = nd ? recall.back() : 0.0;
        }
    }
}

} // namespace

double ClassResult::ap5095() const {
    if (ap.empty())
        return -1;
    double sum = 0;
    for (double a : ap)
        sum += a;
    return sum / static_cast<double>(ap.size());
}

const std::vector<double>& cocoIouThresholds() {
    static const std::vector<double> thresholds = linspace(0.5, 0.95, 10);
    return thresholds;
}

const std::vector<double>& cocoRecallPoints() {
    static const std::vector<double> points = linspace(0.0, 1.0, 101);
    return points;
}

CocoEvalResult evaluateCoco(const std::vector<GroundTruth>& truth,
                            const std::vector<Detection>& detections,
                            const std::vector<int64_t>& images, const std::vector<int>& categories,
                            const CocoEvalOptions& options) {
    const std::set<int64_t> imageSet(images.begin(), images.end());
    const std::set<int> categorySet(categories.begin(), categories.end());
    // In the order given, per (category, image).
    std::map<std::pair<int, int64_t>, std::vector<const GroundTruth*>> truthOf;
    std::map<std::pair<int, int64_t>, std::vector<const Detection*>> detectionsOf;
    for (const GroundTruth& g : truth) {
        if (!imageSet.count(g.image) || !categorySet.count(g.category))
            throw Error("COCO evaluation: a ground-truth box on image " + std::to_string(g.image) +
                        ", category " + std::to_string(g.category) +
                        ", neither of which is listed");
        truthOf[{g.category, g.image}].push_back(&g);
    }
    for (const Detection& d : detections) {
        if (!imageSet.count(d.image))
            throw Error("COCO evaluation: a detection on image " + std::to_string(d.image) +
                        ", which the ground truth does not have");
        if (categorySet.count(d.category)) // COCO drops other categories
            detectionsOf[{d.category, d.image}].push_back(&d);
    }
    CocoEvalResult result;
    double sum50 = 0, sum5095 = 0;
    int counted = 0;
    for (int category : categorySet) {
        std::vector<ImageEval> evaluated;
        for (int64_t image : imageSet) {
            const auto t = truthOf.find({category, image});
            const auto d = detectionsOf.find({category, image});
            if (t == truthOf.end() && d == detectionsOf.end())
                continue;
            evaluated.push_back(evaluateImage(
                t == truthOf.end() ? std::vector<const GroundTruth*>{} : t->second,
                d == detectionsOf.end() ? std::vector<const Detection*>{} : d->second, options));
        }
        ClassResult c;
        c.category = category;
        accumulateClass(evaluated, c);
        if (!c.ap.empty()) {
            sum50 += c.ap50();
            sum5095 += c.ap5095();
            ++counted;
        }
        result.classes.push_back(std::move(c));
    }
    if (counted > 0) {
        result.map50 = sum50 / counted;
        result.map5095 = sum5095 / counted;
    }
    return result;
}

} // namespace tb::detect

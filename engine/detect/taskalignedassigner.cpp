// TaskAlignedAssigner.forward (Ultralytics 8.0): get_pos_mask (select_candidates_in_gts,
// get_box_metrics, select_topk_candidates), select_highest_overlaps, get_targets and the
// normalisation of the alignment, for one image.
#include "detect/taskalignedassigner.h"

#include "detect/ciou.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tb::detect {

namespace {

std::array<double, 4> corners(const Corners& c) {
    return {c.x1, c.y1, c.x2, c.y2};
}

} // namespace

Assignment assignTargets(const std::vector<float>& scores, int classes,
                         const std::vector<Corners>& predicted,
                         const std::vector<AnchorPoint>& points,
                         const std::vector<TargetBox>& targets, const AssignerOptions& options) {
    const std::size_t anchors = points.size(), boxes = targets.size();
    Assignment result{std::vector<int>(anchors, -1), std::vector<float>(anchors, 0.0f)};
    if (boxes == 0)
        return result;
    constexpr double kEps = 1e-9;
    // Per box and anchor: centre inside the box, overlap and alignment (0 outside).
    std::vector<double> overlap(boxes * anchors, 0.0), align(boxes * anchors, 0.0);
    std::vector<char> inside(boxes * anchors, 0), positive(boxes * anchors, 0);
    for (std::size_t g = 0; g < boxes; ++g) {
        const Corners& t = targets[g].box;
        for (std::size_t a = 0; a < anchors; ++a) {
            const double x = static_cast<double>(points[a].x) * points[a].stride;
            const double y = static_cast<double>(points[a].y) * points[a].stride;
            if (std::min({x - t.x1, y - t.y1, t.x2 - x, t.y2 - y}) <= kEps)
                continue;
            const std::size_t i = g * anchors + a;
            inside[i] = 1;
            overlap[i] = std::max(0.0, ciou(corners(t), corners(predicted[a])).value);
            const double score = scores[a * static_cast<std::size_t>(classes) +
                                        static_cast<std::size_t>(targets[g].category)];
            align[i] = std::pow(score, options.alpha) * std::pow(overlap[i], options.beta);
        }
        // The top k by alignment (over every anchor point; those outside score 0), kept where
        // inside the box.
        std::vector<std::size_t> order(anchors);
        std::iota(order.begin(), order.end(), 0);
        const auto k = std::min<std::size_t>(static_cast<std::size_t>(options.topk), anchors);
        std::partial_sort(order.begin(), order.begin() + static_cast<long>(k), order.end(),
                          [&](std::size_t a, std::size_t b) {
                              const double ma = align[g * anchors + a], mb = align[g * anchors + b];
                              return ma > mb || (ma == mb && a < b);
                          });
        for (std::size_t j = 0; j < k; ++j)
            positive[g * anchors + order[j]] = inside[g * anchors + order[j]];
    }
    // An anchor point claimed twice goes to the box it overlaps most (first on a tie).
    for (std::size_t a = 0; a < anchors; ++a) {
        int claims = 0;
        for (std::size_t g = 0; g < boxes; ++g)
            claims += positive[g * anchors + a];
        if (claims > 1) {
            std::size_t best = 0;
            for (std::size_t g = 1; g < boxes; ++g)
                if (overlap[g * anchors + a] > overlap[best * anchors + a])
                    best = g;
            for (std::size_t g = 0; g < boxes; ++g)
                positive[g * anchors + a] = g == best ? 1 : 0;
        }
    }
    // Each box's best alignment and best overlap over its positives, for the normalisation.
    std::vector<double> bestAlign(boxes, 0.0), bestOverlap(boxes, 0.0);
    for (std::size_t g = 0; g < boxes; ++g)
        for (std::size_t a = 0; a < anchors; ++a)
            if (positive[g * anchors + a]) {
                bestAlign[g] = std::max(bestAlign[g], align[g * anchors + a]);
                bestOverlap[g] = std::max(bestOverlap[g], overlap[g * anchors + a]);
            }
    for (std::size_t a = 0; a < anchors; ++a)
        for (std::size_t g = 0; g < boxes; ++g)
            if (positive[g * anchors + a]) {
                result.target[a] = static_cast<int>(g);
                result.alignedScore[a] = static_cast<float>(align[g * anchors + a] *
                                                            bestOverlap[g] / (bestAlign[g] + kEps));
                break;
            }
    return result;
}

} // namespace tb::detect

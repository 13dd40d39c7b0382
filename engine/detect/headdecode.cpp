// Decoding a detection head and non-maximum suppression (Ultralytics' Detect inference path and
// ops.non_max_suppression, torchvision's nms kernel), in float32 as they compute.
#include "detect/headdecode.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace tb::detect {

namespace {

// The expectation of a softmax over reg_max logits, bin i at distance i (the DFL's projection).
float expectedDistance(const float* head, int64_t anchors, int64_t a, int64_t firstRow,
                       int regMax) {
    float peak = head[firstRow * anchors + a];
    for (int i = 1; i < regMax; ++i)
        peak = std::max(peak, head[(firstRow + i) * anchors + a]);
    float sum = 0, weighted = 0;
    for (int i = 0; i < regMax; ++i) {
        const float e = std::exp(head[(firstRow + i) * anchors + a] - peak);
        sum += e;
        weighted += e * static_cast<float>(i);
    }
    return weighted / sum;
}

float sigmoid(float x) {
    return 1.0f / (1.0f + std::exp(-x));
}

float area(const Corners& b) {
    return (b.x2 - b.x1) * (b.y2 - b.y1);
}

} // namespace

std::vector<AnchorPoint> anchorPoints(const std::vector<int64_t>& heights,
                                      const std::vector<int64_t>& widths,
                                      const std::vector<int64_t>& strides) {
    std::vector<AnchorPoint> points;
    for (std::size_t m = 0; m < strides.size(); ++m)
        for (int64_t y = 0; y < heights[m]; ++y)
            for (int64_t x = 0; x < widths[m]; ++x)
                points.push_back({static_cast<float>(x) + 0.5f, static_cast<float>(y) + 0.5f,
                                  static_cast<float>(strides[m])});
    return points;
}

Corners decodeBox(const float* head, int64_t anchors, int64_t a, int regMax, const AnchorPoint& p) {
    const float left = expectedDistance(head, anchors, a, 0, regMax);
    const float top = expectedDistance(head, anchors, a, regMax, regMax);
    const float right = expectedDistance(head, anchors, a, 2 * regMax, regMax);
    const float bottom = expectedDistance(head, anchors, a, 3 * regMax, regMax);
    // dist2bbox's centre and size, then times the stride, as Detect._inference.
    const float x1 = p.x - left, y1 = p.y - top, x2 = p.x + right, y2 = p.y + bottom;
    const float cx = (x1 + x2) / 2 * p.stride, cy = (y1 + y2) / 2 * p.stride;
    const float w = (x2 - x1) * p.stride, h = (y2 - y1) * p.stride;
    return {cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2}; // xywh2xyxy
}

std::vector<std::size_t> nonMaxSuppression(const std::vector<Corners>& boxes,
                                           const std::vector<float>& scores, float iou) {
    std::vector<std::size_t> order(boxes.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
    std::vector<char> suppressed(boxes.size(), 0);
    std::vector<std::size_t> kept;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const std::size_t k = order[i];
        if (suppressed[k])
            continue;
        kept.push_back(k);
        const Corners& a = boxes[k];
        for (std::size_t j = i + 1; j < order.size(); ++j) {
            const std::size_t o = order[j];
            if (suppressed[o])
                continue;
            const Corners& b = boxes[o];
            const float w = std::max(0.0f, std::min(a.x2, b.x2) - std::max(a.x1, b.x1));
            const float h = std::max(0.0f, std::min(a.y2, b.y2) - std::max(a.y1, b.y1));
            const float shared = w * h;
            if (shared / (area(a) + area(b) - shared) > iou)
                suppressed[o] = 1;
        }
    }
    return kept;
}

std::vector<ScoredBox> detectionsOf(const float* head, int64_t anchors, int regMax, int classes,
                                    const std::vector<AnchorPoint>& points,
                                    const NmsOptions& options) {
    // Candidates in non_max_suppression's order: anchor by anchor, class by class.
    std::vector<ScoredBox> candidates;
    for (int64_t a = 0; a < anchors; ++a) {
        const float* logits = head + 4 * regMax * anchors + a;
        int best = 0;
        for (int c = 1; c < classes; ++c)
            if (logits[c * anchors] > logits[best * anchors])
                best = c;
        if (!(sigmoid(logits[best * anchors]) > options.confidence))
            continue;
        const Corners box =
            decodeBox(head, anchors, a, regMax, points[static_cast<std::size_t>(a)]);
        for (int c = 0; c < classes; ++c) {
            const float score = sigmoid(logits[c * anchors]);
            if (options.multiLabel ? score > options.confidence : c == best)
                candidates.push_back({box, c, score});
        }
    }
    if (candidates.size() > static_cast<std::size_t>(options.maxCandidates)) {
        std::stable_sort(candidates.begin(), candidates.end(),
                         [](const ScoredBox& a, const ScoredBox& b) { return a.score > b.score; });
        candidates.resize(static_cast<std::size_t>(options.maxCandidates));
    }
    // Suppression within each class; then the survivors of all classes by score.
    std::map<int, std::vector<std::size_t>> byClass;
    for (std::size_t i = 0; i < candidates.size(); ++i)
        byClass[candidates[i].category].push_back(i);
    std::vector<std::size_t> kept;
    for (const auto& [category, members] : byClass) {
        std::vector<Corners> boxes;
        std::vector<float> scores;
        for (std::size_t i : members) {
            boxes.push_back(candidates[i].box);
            scores.push_back(candidates[i].score);
        }
        for (std::size_t k : nonMaxSuppression(boxes, scores, options.iou))
            kept.push_back(members[k]);
    }
    std::stable_sort(kept.begin(), kept.end(), [&](std::size_t a, std::size_t b) {
        return candidates[a].score > candidates[b].score ||
               (candidates[a].score == candidates[b].score && a < b);
    });
    if (kept.size() > static_cast<std::size_t>(options.maxDetections))
        kept.resize(static_cast<std::size_t>(options.maxDetections));
    std::vector<ScoredBox> out;
    for (std::size_t i : kept)
        out.push_back(candidates[i]);
    return out;
}

} // namespace tb::detect

// v8DetectionLoss.__call__ and BboxLoss (Ultralytics 8.0) for a batch, with the gradient of
// the weighted sum written out by hand: the sigmoid's for the classes; through CIoU (detect/
// ciou), the box corners and each side's expected distance for the box term; the softmax's
// for the distribution focal loss.
#include "detect/detectionloss.h"

#include "detect/ciou.h"

#include <algorithm>
#include <cmath>

namespace tb::detect {

namespace {

// One image's predictions: per anchor point and side, the softmax over the bins and its
// expectation; the decoded box in cells.
struct Decoded {
    std::vector<double> probs; // anchors x 4 x regMax
    std::vector<std::array<double, 4>> distance;
    std::vector<std::array<double, 4>> box; // cells, (x1, y1, x2, y2)
};

Decoded decode(const float* head, int64_t anchors, int regMax,
               const std::vector<AnchorPoint>& points) {
    const auto n = static_cast<std::size_t>(anchors), bins = static_cast<std::size_t>(regMax);
    Decoded d{std::vector<double>(n * 4 * bins), std::vector<std::array<double, 4>>(n),
              std::vector<std::array<double, 4>>(n)};
    for (std::size_t a = 0; a < n; ++a) {
        for (std::size_t side = 0; side < 4; ++side) {
            const float* z = head + side * bins * n + a;
            double peak = z[0];
            for (std::size_t i = 1; i < bins; ++i)
                peak = std::max(peak, static_cast<double>(z[i * n]));
            double sum = 0;
            double* p = &d.probs[(a * 4 + side) * bins];
            for (std::size_t i = 0; i < bins; ++i)
                sum += p[i] = std::exp(z[i * n] - peak);
            double expectation = 0;
            for (std::size_t i = 0; i < bins; ++i)
                expectation += (p[i] /= sum) * static_cast<double>(i);
            d.distance[a][side] = expectation;
        }
        const double x = points[a].x, y = points[a].y;
        d.box[a] = {x - d.distance[a][0], y - d.distance[a][1], x + d.distance[a][2],
                    y + d.distance[a][3]};
    }
    return d;
}

double sigmoid(double x) {
    return 1.0 / (1.0 + std::exp(-x));
}

// BCEWithLogits(x, t) = max(x, 0) - x t + log(1 + exp(-|x|)).
double bceWithLogits(double x, double t) {
    return std::max(x, 0.0) - x * t + std::log1p(std::exp(-std::abs(x)));
}

} // namespace

DetectionLossTerms detectionLoss(const float* head, int64_t images, int64_t anchors, int regMax,
                                 int classes, const std::vector<AnchorPoint>& points,
                                 const std::vector<std::vector<TargetBox>>& targets,
                                 const DetectionLossOptions& options, float* grad,
                                 double gradScale) {
    const auto n = static_cast<std::size_t>(anchors), bins = static_cast<std::size_t>(regMax),
               nc = static_cast<std::size_t>(classes);
    const std::size_t rows = 4 * bins + nc, perImage = rows * n;
    std::vector<Decoded> decoded;
    std::vector<Assignment> assigned;
    double scoreSum = 0;
    for (int64_t image = 0; image < images; ++image) {
        const float* h = head + static_cast<std::size_t>(image) * perImage;
        decoded.push_back(decode(h, anchors, regMax, points));
        std::vector<float> scores(n * nc);
        std::vector<Corners> pixels(n);
        for (std::size_t a = 0; a < n; ++a) {
            for (std::size_t c = 0; c < nc; ++c)
                scores[a * nc + c] = static_cast<float>(sigmoid(h[(4 * bins + c) * n + a]));
            const auto& b = decoded.back().box[a];
            const double s = points[a].stride;
            pixels[a] = {static_cast<float>(b[0] * s), static_cast<float>(b[1] * s),
                         static_cast<float>(b[2] * s), static_cast<float>(b[3] * s)};
        }
        assigned.push_back(assignTargets(scores, classes, pixels, points,
                                         targets[static_cast<std::size_t>(image)],
                                         options.assigner));
        for (float s : assigned.back().alignedScore)
            scoreSum += s;
    }
    const double norm = std::max(scoreSum, 1.0);
    if (grad)
        std::fill(grad, grad + static_cast<std::size_t>(images) * perImage, 0.0f);

    DetectionLossTerms terms;
    double cls = 0, box = 0, dfl = 0;
    const double maxDistance = static_cast<double>(regMax - 1) - 0.01; // bbox2dist's clamp
    for (int64_t image = 0; image < images; ++image) {
        const std::size_t offset = static_cast<std::size_t>(image) * perImage;
        const float* h = head + offset;
        float* g = grad ? grad + offset : nullptr;
        const Decoded& d = decoded[static_cast<std::size_t>(image)];
        const Assignment& as = assigned[static_cast<std::size_t>(image)];
        const auto& boxes = targets[static_cast<std::size_t>(image)];
        for (std::size_t a = 0; a < n; ++a) {
            const int t = as.target[a];
            const int label = t >= 0 ? boxes[static_cast<std::size_t>(t)].category : -1;
            for (std::size_t c = 0; c < nc; ++c) {
                const double x = h[(4 * bins + c) * n + a];
                const double target = static_cast<int>(c) == label ? as.alignedScore[a] : 0.0;
                cls += bceWithLogits(x, target);
                if (g)
                    g[(4 * bins + c) * n + a] =
                        static_cast<float>((sigmoid(x) - target) / norm * options.cls * gradScale);
            }
            if (t < 0)
                continue;
            ++terms.positives;
            const double weight = as.alignedScore[a], stride = points[a].stride;
            const Corners& truth = boxes[static_cast<std::size_t>(t)].box;
            const std::array<double, 4> target{truth.x1 / stride, truth.y1 / stride,
                                               truth.x2 / stride, truth.y2 / stride};
            const CiouResult overlap = ciou(d.box[a], target);
            box += (1.0 - overlap.value) * weight;
            // d box / d distance: x1 = x - left, y1 = y - top, x2 = x + right, y2 = y + bottom.
            std::array<double, 4> dDistance{};
            for (std::size_t side = 0; side < 4; ++side)
                dDistance[side] = -overlap.gradFirst[side] * weight / norm * options.box *
                                  gradScale * (side < 2 ? -1.0 : 1.0);
            const std::array<double, 4> trueDistance{
                points[a].x - target[0], points[a].y - target[1], target[2] - points[a].x,
                target[3] - points[a].y};
            for (std::size_t side = 0; side < 4; ++side) {
                const double* p = &d.probs[(a * 4 + side) * bins];
                const double want = std::clamp(trueDistance[side], 0.0, maxDistance);
                const auto left = static_cast<std::size_t>(want); // truncation, as .long()
                const double wl = static_cast<double>(left + 1) - want, wr = 1.0 - wl;
                const double logSum = [&] {
                    double peak = h[side * bins * n + a];
                    for (std::size_t i = 1; i < bins; ++i)
                        peak = std::max(peak, static_cast<double>(h[(side * bins + i) * n + a]));
                    double s = 0;
                    for (std::size_t i = 0; i < bins; ++i)
                        s += std::exp(h[(side * bins + i) * n + a] - peak);
                    return peak + std::log(s);
                }();
                dfl += ((logSum - h[(side * bins + left) * n + a]) * wl +
                        (logSum - h[(side * bins + left + 1) * n + a]) * wr) /
                       4.0 * weight;
                if (!g)
                    continue;
                const double dflScale = weight / 4.0 / norm * options.dfl * gradScale;
                for (std::size_t i = 0; i < bins; ++i) {
                    const double dfocal =
                        (p[i] - (i == left ? wl : 0.0) - (i == left + 1 ? wr : 0.0)) * dflScale;
                    // d expectation / d logit i = p_i (i - expectation)
                    const double dbox =
                        dDistance[side] * p[i] * (static_cast<double>(i) - d.distance[a][side]);
                    g[(side * bins + i) * n + a] += static_cast<float>(dfocal + dbox);
                }
            }
        }
    }
    terms.cls = cls / norm * options.cls;
    terms.box = box / norm * options.box;
    terms.dfl = dfl / norm * options.dfl;
    return terms;
}

} // namespace tb::detect

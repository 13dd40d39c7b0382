// YOLOv8's loss (detect/detectionloss, taskalignedassigner, ciou): the assigner's rules on
// scenes worked out by hand, and the three loss terms and their gradient with respect to the
// head output against Ultralytics' v8DetectionLoss written from its definitions in PyTorch
// (tests/torch/detectloss_reference.py, autograd for the gradient): ours as close to PyTorch's
// float64 as its float32 is.
#include "detect/ciou.h"
#include "detect/detectionloss.h"

#include "backend/kernels/random_math.h"
#include "core/tensor.h"
#include "io/safetensors.h"
#include "support/torchreference.h"

#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace tb;
using namespace tb::detect;

namespace {

constexpr int kRegMax = 16;

std::string joined(const std::vector<int64_t>& values) {
    std::string s;
    for (int64_t v : values)
        s += (s.empty() ? "" : ",") + std::to_string(v);
    return s;
}

// A head whose anchor points inside a box predict that box roughly (each side's bins peaked
// near the true distance, jittered), and anything elsewhere; class logits at random.
Tensor headFor(const std::vector<std::vector<TargetBox>>& images,
               const std::vector<AnchorPoint>& points, int classes, uint64_t seed) {
    const auto anchors = static_cast<int64_t>(points.size());
    const int64_t rows = 4 * kRegMax + classes;
    Tensor head = Tensor::host({static_cast<int64_t>(images.size()), rows, anchors}, DType::F32);
    uint64_t draw = 0;
    const auto u = [&] { return math::uniform01(seed, draw++); };
    for (std::size_t n = 0; n < images.size(); ++n) {
        float* h = head.data<float>() + static_cast<int64_t>(n) * rows * anchors;
        for (int64_t a = 0; a < anchors; ++a) {
            const AnchorPoint& p = points[static_cast<std::size_t>(a)];
            const TargetBox* inside = nullptr;
            for (const TargetBox& t : images[n])
                if (p.x * p.stride > t.box.x1 && p.x * p.stride < t.box.x2 &&
                    p.y * p.stride > t.box.y1 && p.y * p.stride < t.box.y2)
                    inside = &t;
            for (int side = 0; side < 4; ++side) {
                double centre = 1 + u() * 12;
                if (inside) {
                    const double distances[4] = {
                        p.x - inside->box.x1 / p.stride, p.y - inside->box.y1 / p.stride,
                        inside->box.x2 / p.stride - p.x, inside->box.y2 / p.stride - p.y};
                    centre = distances[side] * (0.85 + 0.3 * u());
                }
                for (int i = 0; i < kRegMax; ++i)
                    h[(side * kRegMax + i) * anchors + a] =
                        static_cast<float>(-0.5 * (i - centre) * (i - centre) + 0.5 * u());
            }
            for (int c = 0; c < classes; ++c)
                h[(4 * kRegMax + c) * anchors + a] = static_cast<float>(8 * u() - 6);
        }
    }
    return head;
}

} // namespace

class TestDetectionLoss : public QObject {
    Q_OBJECT
private slots:
    // Identical boxes: IoU 1 up to the eps terms, no distance or aspect penalty, and no pull.
    // A box shifted right: CIoU below its IoU by the centre distance over the enclosing
    // diagonal, (1^2) / (11^2 + 10^2).
    void ciouOfSimpleBoxes() {
        const CiouResult same = ciou({0, 0, 10, 10}, {0, 0, 10, 10});
        QVERIFY(std::abs(same.value - 1.0) < 1e-7); // the eps terms: 1 - 2.1e-8
        for (double g : same.gradFirst)
            QVERIFY(std::abs(g) < 1e-6);
        const CiouResult shifted = ciou({1, 0, 11, 10}, {0, 0, 10, 10});
        QVERIFY(std::abs(shifted.value - (90.0 / 110.0 - 1.0 / 221.0)) < 1e-6);
        QVERIFY(shifted.gradFirst[0] < 0 && shifted.gradFirst[2] < 0); // move it back left
    }

    // The best-aligned anchor points inside a box learn it, at most top-k; one claimed by two
    // boxes learns the one its prediction overlaps more; points outside every box never learn.
    void assignerFollowsTheAlignment() {
        std::vector<AnchorPoint> points;
        for (int x = 0; x < 6; ++x)
            points.push_back({x + 0.5f, 0.5f, 8.0f}); // centres at 4, 12, ..., 44 px
        const std::vector<TargetBox> boxes{{0, {0, 0, 30, 8}}, {1, {10, 0, 40, 8}}};
        // Every prediction is box 0 except point 3's, which is box 1; scores all 0.5.
        std::vector<Corners> predicted(6, Corners{0, 0, 30, 8});
        predicted[3] = {10, 0, 40, 8};
        const std::vector<float> scores(12, 0.5f);
        AssignerOptions options;
        options.topk = 2;
        const Assignment a = assignTargets(scores, 2, predicted, points, boxes, options);
        // Box 0 holds points 0-3, all but point 3 predicting it exactly: a tie, so its top 2
        // are 0 and 1. Box 1 holds points 1-4: point 3 predicts it best, then 1, 2 and 4 tie
        // (their box 0 overlaps it by half, less the centre penalty) and 1 wins on its index.
        // Point 1, claimed twice, stays with box 0, which its prediction overlaps more.
        QCOMPARE(a.target, (std::vector<int>{0, 0, -1, 1, -1, -1}));
        QVERIFY(a.alignedScore[0] > 0.99f && a.alignedScore[1] > 0.99f);
        QCOMPARE(a.alignedScore[2], 0.0f);
    }

    void matchesUltralytics() {
        if (const QString why = test::torchUnavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        const std::vector<int64_t> heights{8, 4, 2}, widths{8, 4, 2}, strides{8, 16, 32};
        const auto points = anchorPoints(heights, widths, strides);
        const auto anchors = static_cast<int64_t>(points.size());
        constexpr int kClasses = 3;
        // Two overlapping boxes; three of different sizes with one at the border; none.
        const std::vector<std::vector<TargetBox>> images{
            {{0, {4, 6, 30, 40}}, {2, {16, 20, 50, 58}}},
            {{1, {0, 0, 20, 14}}, {1, {30, 8, 62, 62}}, {0, {40, 2, 52, 14}}},
            {}};
        const Tensor head = headFor(images, points, kClasses, 31);
        const auto count = static_cast<int64_t>(images.size());
        Tensor grad = Tensor::host(head.shape(), DType::F32);
        const DetectionLossOptions options;
        const DetectionLossTerms terms =
            detectionLoss(head.data<float>(), count, anchors, kRegMax, kClasses, points, images,
                          options, grad.data<float>(), static_cast<double>(count));
        qInfo("box %.5f, cls %.5f, dfl %.5f; %lld anchor points learn a box", terms.box, terms.cls,
              terms.dfl, static_cast<long long>(terms.positives));
        QVERIFY(terms.positives > 0);

        Tensor boxes = Tensor::host({5, 6}, DType::F32), ours = Tensor::host({3}, DType::F32);
        int64_t row = 0;
        for (std::size_t n = 0; n < images.size(); ++n)
            for (const TargetBox& t : images[n]) {
                const float values[6] = {static_cast<float>(n),
                                         static_cast<float>(t.category),
                                         t.box.x1,
                                         t.box.y1,
                                         t.box.x2,
                                         t.box.y2};
                std::copy(values, values + 6, boxes.data<float>() + 6 * row++);
            }
        ours.data<float>()[0] = static_cast<float>(terms.box);
        ours.data<float>()[1] = static_cast<float>(terms.cls);
        ours.data<float>()[2] = static_cast<float>(terms.dfl);
        QTemporaryDir dir;
        const QString path = dir.filePath("loss.safetensors");
        writeSafetensors(
            path.toStdString(),
            {{"head", head}, {"boxes", boxes}, {"ours_terms", ours}, {"ours_grad", grad}},
            {{"heights", joined(heights)},
             {"widths", joined(widths)},
             {"strides", joined(strides)},
             {"reg_max", std::to_string(kRegMax)},
             {"gains", "7.5,0.5,1.5"}});
        const QJsonObject r = test::runTorchScript("detectloss_reference.py", {path});
        QCOMPARE(r["positives"].toInt(), static_cast<int>(terms.positives));
        const QString failed = test::fartherThanPyTorch(r, {"terms", "gradient"});
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
    }
};

QTEST_GUILESS_MAIN(TestDetectionLoss)
#include "tst_detectionloss.moc"

// Decoding a detection head (detect/headdecode): anchor points, the DFL's expected distances
// and boxes worked out by hand, torchvision's suppression rule, and whole heads decoded and
// suppressed against Ultralytics' inference path written from its definitions with PyTorch and
// torchvision.ops.nms (tests/torch/detect_reference.py): the same boxes, classes and scores in
// the same order.
#include "detect/headdecode.h"

#include "backend/kernels/random_math.h"
#include "core/tensor.h"
#include "io/safetensors.h"
#include "support/torchreference.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace tb;
using namespace tb::detect;

namespace {

constexpr int kRegMax = 16;

// One anchor's column of a head with `anchors` columns: each side's distribution peaked at
// `bins[side]` (a logit of 30 there, 0 elsewhere), class logits as given.
std::vector<float> headWithOneAnchor(const int bins[4], const std::vector<float>& classLogits) {
    std::vector<float> head(4 * kRegMax + classLogits.size(), 0.0f);
    for (int side = 0; side < 4; ++side)
        head[static_cast<std::size_t>(side * kRegMax + bins[side])] = 30.0f;
    for (std::size_t c = 0; c < classLogits.size(); ++c)
        head[4 * kRegMax + c] = classLogits[c];
    return head;
}

std::string joined(const std::vector<int64_t>& values) {
    std::string s;
    for (int64_t v : values)
        s += (s.empty() ? "" : ",") + std::to_string(v);
    return s;
}

} // namespace

class TestHeadDecode : public QObject {
    Q_OBJECT
private slots:
    // Cell centres map by map, row-major, each with its stride.
    void anchorPointsFollowTheMaps() {
        const auto points = anchorPoints({2, 1}, {3, 1}, {8, 16});
        QCOMPARE(points.size(), std::size_t{7});
        QCOMPARE(points[0].x, 0.5f);
        QCOMPARE(points[0].y, 0.5f);
        QCOMPARE(points[2].x, 2.5f);
        QCOMPARE(points[3].x, 0.5f);
        QCOMPARE(points[3].y, 1.5f);
        QCOMPARE(points[6].stride, 16.0f);
    }

    // Distributions peaked at 2, 3, 4 and 5 bins around the first cell's centre (0.5, 0.5) at
    // stride 8: corners (0.5 - 2, 0.5 - 3, 0.5 + 4, 0.5 + 5) x 8.
    void aPeakedDistributionGivesItsBin() {
        const int bins[4] = {2, 3, 4, 5};
        const std::vector<float> head = headWithOneAnchor(bins, {0.0f});
        const Corners box = decodeBox(head.data(), 1, 0, kRegMax, {0.5f, 0.5f, 8.0f});
        QVERIFY(std::abs(box.x1 - -12.0f) < 1e-4f);
        QVERIFY(std::abs(box.y1 - -20.0f) < 1e-4f);
        QVERIFY(std::abs(box.x2 - 36.0f) < 1e-4f);
        QVERIFY(std::abs(box.y2 - 44.0f) < 1e-4f);
    }

    // Suppressed only above the threshold, best first, ties in the order given.
    void suppressionKeepsTheBestOfEachCluster() {
        const std::vector<Corners> boxes{
            {0, 0, 10, 10}, {1, 0, 11, 10}, {50, 50, 60, 60}, {0, 0, 10, 10}, {0, 0, 10, 5}};
        const std::vector<float> scores{0.8f, 0.9f, 0.5f, 0.9f, 0.7f};
        // 1 and 3 tie at 0.9 (IoU 0.82): 1 comes first and suppresses 3 and 0; 4 overlaps 1 by
        // 45/105 = 0.43, kept at 0.5 and dropped at 0.4.
        QCOMPARE(nonMaxSuppression(boxes, scores, 0.5f), (std::vector<std::size_t>{1, 4, 2}));
        QCOMPARE(nonMaxSuppression(boxes, scores, 0.4f), (std::vector<std::size_t>{1, 2}));
    }

    void matchesUltralytics_data() {
        QTest::addColumn<float>("confidence");
        QTest::addColumn<float>("iou");
        QTest::addColumn<int>("maxDetections");
        QTest::addColumn<bool>("multiLabel");
        QTest::newRow("validation") << 0.001f << 0.7f << 300 << true;
        QTest::newRow("prediction") << 0.25f << 0.7f << 300 << false;
        QTest::newRow("max-det-5") << 0.05f << 0.5f << 5 << true;
    }
    void matchesUltralytics() {
        if (const QString why = test::torchUnavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QFETCH(float, confidence);
        QFETCH(float, iou);
        QFETCH(int, maxDetections);
        QFETCH(bool, multiLabel);
        const std::vector<int64_t> heights{8, 4, 2}, widths{8, 4, 2}, strides{8, 16, 32};
        const auto points = anchorPoints(heights, widths, strides);
        const auto anchors = static_cast<int64_t>(points.size());
        constexpr int kClasses = 3, kImages = 2;
        constexpr int64_t kRows = 4 * kRegMax + kClasses;
        Tensor head = Tensor::host({kImages, kRows, anchors}, DType::F32);
        for (int64_t i = 0; i < head.numel(); ++i) {
            const int64_t row = (i / anchors) % kRows;
            const float u = math::uniform01(77, static_cast<uint64_t>(i));
            // Box logits spread enough that the distributions differ; class logits from sure
            // background to confident, so that many candidates overlap.
            head.data<float>()[i] = row < 4 * kRegMax ? 4.0f * u - 2.0f : 12.0f * u - 8.0f;
        }
        const NmsOptions options{confidence, iou, maxDetections, multiLabel};
        QTemporaryDir dir;
        const QString path = dir.filePath("head.safetensors");
        writeSafetensors(path.toStdString(), {{"head", head}},
                         {{"heights", joined(heights)},
                          {"widths", joined(widths)},
                          {"strides", joined(strides)},
                          {"reg_max", std::to_string(kRegMax)},
                          {"confidence", QString::number(confidence, 'g', 9).toStdString()},
                          {"iou", QString::number(iou, 'g', 9).toStdString()},
                          {"max_det", std::to_string(maxDetections)},
                          {"multi_label", multiLabel ? "1" : "0"}});
        const QJsonArray images =
            test::runTorchScript("detect_reference.py", {path})["images"].toArray();
        QCOMPARE(images.size(), kImages);
        for (int n = 0; n < kImages; ++n) {
            const auto ours = detectionsOf(head.data<float>() + n * kRows * anchors, anchors,
                                           kRegMax, kClasses, points, options);
            const QJsonArray theirs = images[n].toArray();
            qInfo("image %d: %zu detections (Ultralytics: %lld)", n, ours.size(),
                  static_cast<long long>(theirs.size()));
            QCOMPARE(static_cast<qsizetype>(ours.size()), theirs.size());
            for (std::size_t k = 0; k < ours.size(); ++k) {
                const QJsonArray t = theirs[static_cast<int>(k)].toArray();
                const ScoredBox& o = ours[k];
                const QString where = QStringLiteral("image %1, detection %2").arg(n).arg(k);
                QVERIFY2(o.category == t[5].toInt(), qPrintable(where));
                QVERIFY2(std::abs(o.score - t[4].toDouble()) < 1e-6, qPrintable(where));
                const float corners[4] = {o.box.x1, o.box.y1, o.box.x2, o.box.y2};
                for (int c = 0; c < 4; ++c)
                    QVERIFY2(std::abs(corners[c] - t[c].toDouble()) < 1e-3, qPrintable(where));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestHeadDecode)
#include "tst_headdecode.moc"

// The detection confusion matrix (detect/detectionconfusion): crafted scenes counted by hand
// with Ultralytics' rules (confidence above 0.25, IoU above 0.45, one detection per box with
// the highest overlaps first), the background as the last row and column.
#include "detect/detectionconfusion.h"

#include <QtTest>

using namespace tb::detect;

namespace {

constexpr int kClasses = 2;
constexpr int kBackground = kClasses;

GroundTruth gt(int64_t image, int category, Box box, bool crowd = false) {
    return {image, category, box, crowd, -1};
}
Detection det(int64_t image, int category, Box box, double score) {
    return {image, category, box, score};
}

int64_t at(const std::vector<int64_t>& m, int trueClass, int predicted) {
    return m[static_cast<std::size_t>(trueClass * (kClasses + 1) + predicted)];
}

int64_t total(const std::vector<int64_t>& m) {
    int64_t sum = 0;
    for (int64_t v : m)
        sum += v;
    return sum;
}

} // namespace

class TestDetectionConfusion : public QObject {
    Q_OBJECT

private slots:
    void rightWrongMissedAndFalsePositive() {
        const std::vector<GroundTruth> truth{gt(0, 0, {0, 0, 10, 10}), gt(0, 1, {50, 50, 10, 10}),
                                             gt(1, 1, {0, 0, 20, 20})};
        const std::vector<Detection> detections{
            det(0, 0, {0, 0, 10, 10}, 0.9),   // right
            det(0, 0, {50, 50, 10, 9}, 0.8),  // box 2 found as class 0
            det(0, 1, {80, 80, 10, 10}, 0.7), // nothing there: a false positive
        };
        const auto m = detectionConfusion(truth, detections, kClasses);
        QCOMPARE(m.size(), std::size_t(9));
        QCOMPARE(at(m, 0, 0), 1);
        QCOMPARE(at(m, 1, 0), 1);
        QCOMPARE(at(m, kBackground, 1), 1);
        QCOMPARE(at(m, 1, kBackground), 1); // image 1's box: no detection
        QCOMPARE(total(m), 4);
    }

    // A box found twice: the better overlap is the match, the other a false positive.
    void duplicateIsFalsePositive() {
        const std::vector<GroundTruth> truth{gt(0, 1, {0, 0, 10, 10})};
        const std::vector<Detection> detections{det(0, 1, {0, 0, 10, 6}, 0.95),
                                                det(0, 0, {0, 0, 10, 10}, 0.6)};
        const auto m = detectionConfusion(truth, detections, kClasses);
        QCOMPARE(at(m, 1, 0), 1); // the exact box (IoU 1) wins over the higher score (IoU 0.6)
        QCOMPARE(at(m, kBackground, 1), 1);
        QCOMPARE(total(m), 2);
    }

    // Below the thresholds (confidence 0.25 exactly, IoU 0.45 or less) nothing matches.
    void thresholdsAreStrict() {
        const std::vector<GroundTruth> truth{gt(0, 0, {0, 0, 10, 10})};
        const auto low = detectionConfusion(truth, {det(0, 0, {0, 0, 10, 10}, 0.25)}, kClasses);
        QCOMPARE(at(low, 0, kBackground), 1);
        QCOMPARE(total(low), 1);
        // IoU of a 10x4.5 box inside a 10x10 one: exactly 0.45.
        const auto loose = detectionConfusion(truth, {det(0, 0, {0, 0, 10, 4.5}, 0.9)}, kClasses);
        QCOMPARE(at(loose, 0, kBackground), 1);
        QCOMPARE(at(loose, kBackground, 0), 1);
        ConfusionOptions options;
        options.iou = 0.4;
        const auto looser =
            detectionConfusion(truth, {det(0, 0, {0, 0, 10, 4.5}, 0.9)}, kClasses, options);
        QCOMPARE(at(looser, 0, 0), 1);
        QCOMPARE(total(looser), 1);
    }

    // Detections inside a crowd region are neither right nor false positives; the crowd region
    // is not a missed box.
    void crowdRegionsIgnored() {
        const std::vector<GroundTruth> truth{gt(0, 0, {0, 0, 100, 100}, true),
                                             gt(0, 1, {200, 200, 10, 10})};
        const std::vector<Detection> detections{det(0, 0, {10, 10, 10, 10}, 0.9),
                                                det(0, 0, {40, 40, 20, 20}, 0.8),
                                                det(0, 1, {200, 200, 10, 10}, 0.9)};
        const auto m = detectionConfusion(truth, detections, kClasses);
        QCOMPARE(at(m, 1, 1), 1);
        QCOMPARE(total(m), 1);
    }

    // An image without boxes: all its detections are false positives; one with boxes but no
    // detection: all missed.
    void emptyImages() {
        const auto fp = detectionConfusion({}, {det(3, 1, {0, 0, 5, 5}, 0.5)}, kClasses);
        QCOMPARE(at(fp, kBackground, 1), 1);
        const auto missed = detectionConfusion({gt(4, 0, {0, 0, 5, 5})}, {}, kClasses);
        QCOMPARE(at(missed, 0, kBackground), 1);
        QCOMPARE(detectionConfusion({}, {}, kClasses), std::vector<int64_t>(9, 0));
    }
};

QTEST_APPLESS_MAIN(TestDetectionConfusion)
#include "tst_detectionconfusion.moc"

// The segmentation scores as torchvision's reference computes them, on counts made by hand:
// VOC's ignored borders left out, per-class IoU = right / (labelled + predicted - right), the
// mean over the classes present, ranks merged, bad labels named, and the argmax per pixel.
#include "segment/segmentationconfusion.h"

#include "core/errors.h"

#include <QtTest>

#include <cmath>

using namespace tb;
using namespace tb::segment;

class TestSegmentationConfusion : public QObject {
    Q_OBJECT
private slots:
    // Three classes (background, cat, dog) over 12 pixels, two of them ignored (255):
    //   label:      0 0 0 0 1 1 1 2 2 255 255 0
    //   prediction: 0 0 1 0 1 1 2 2 0 1   2   0
    // Counted: 10. Rows are labels: background 4 right, 1 called cat; cat 2 right, 1 called
    // dog; dog 1 right, 1 called background.
    void handCountedScores() {
        const std::vector<int32_t> labels{0, 0, 0, 0, 1, 1, 1, 2, 2, 255, 255, 0};
        const std::vector<int32_t> predicted{0, 0, 1, 0, 1, 1, 2, 2, 0, 1, 2, 0};
        SegmentationConfusion m(3);
        m.add(labels.data(), predicted.data(), static_cast<int64_t>(labels.size()));
        const std::vector<int64_t> expected{4, 1, 0, 0, 2, 1, 1, 0, 1};
        QCOMPARE(m.counts(), expected);
        const SegmentationScores s = m.scores();
        QCOMPARE(s.pixels, int64_t{10});
        QCOMPARE(s.pixelAccuracy, 7.0 / 10.0);
        QCOMPARE(s.classAccuracy, (std::vector<double>{4.0 / 5.0, 2.0 / 3.0, 1.0 / 2.0}));
        // background: 4 / (5 + 5 - 4); cat: 2 / (3 + 3 - 2); dog: 1 / (2 + 2 - 1).
        QCOMPARE(s.iou, (std::vector<double>{4.0 / 6.0, 2.0 / 4.0, 1.0 / 3.0}));
        QCOMPARE(s.meanIoU, (4.0 / 6.0 + 2.0 / 4.0 + 1.0 / 3.0) / 3.0);
    }

    // A class neither labelled nor predicted has no IoU and does not drag the mean to 0 (nor,
    // as torchvision's plain mean would, to NaN); one only predicted has an IoU of 0.
    void absentClassesLeftOutOfTheMean() {
        const std::vector<int32_t> labels{0, 0, 1, 1};
        const std::vector<int32_t> predicted{0, 3, 1, 1};
        SegmentationConfusion m(4);
        m.add(labels.data(), predicted.data(), 4);
        const SegmentationScores s = m.scores();
        QVERIFY(std::isnan(s.iou[2]) && std::isnan(s.classAccuracy[2]));
        QCOMPARE(s.iou[3], 0.0);
        QVERIFY(std::isnan(s.classAccuracy[3]));
        QCOMPARE(s.meanIoU, (1.0 / 2.0 + 1.0 + 0.0) / 3.0);
    }

    // Two ranks' halves merged give the whole; another class count is refused.
    void ranksMerge() {
        const std::vector<int32_t> labels{0, 1, 2, 2, 1, 0};
        const std::vector<int32_t> predicted{0, 2, 2, 1, 1, 0};
        SegmentationConfusion whole(3), first(3), second(3);
        whole.add(labels.data(), predicted.data(), 6);
        first.add(labels.data(), predicted.data(), 3);
        second.add(labels.data() + 3, predicted.data() + 3, 3);
        first.merge(second);
        QCOMPARE(first.counts(), whole.counts());
        QVERIFY_THROWS_EXCEPTION(Error, first.merge(SegmentationConfusion(4)));
    }

    void badInputNamed() {
        SegmentationConfusion m(3);
        const std::vector<int32_t> labels{0, 7}, predicted{0, 1};
        try {
            m.add(labels.data(), predicted.data(), 2);
            QFAIL("label 7 of 3 classes accepted");
        } catch (const Error& e) {
            QCOMPARE(QString(e.what()),
                     "pixel 1: label 7, prediction 1 (classes 0..2, 255 ignored)");
        }
        QVERIFY_THROWS_EXCEPTION(Error, SegmentationConfusion(3, 2)); // 2 is a class
        QVERIFY_THROWS_EXCEPTION(Error, SegmentationConfusion(0));
    }

    // logits(2 images, 3 classes, 1 x 2): the largest class per pixel, the first on a tie.
    void argmaxPerPixel() {
        const std::vector<float> logits{
            0.1f, 0.9f, 0.5f, 0.2f, 0.3f, 0.2f, // image 0: classes 0, 1, 2 over 2 pixels
            1.0f, 0.0f, 1.0f, 2.0f, 0.5f, 2.0f, // image 1: a tie at pixel 0 (0 and 1)
        };
        QCOMPARE(predictedClasses(logits.data(), 2, 3, 2), (std::vector<int32_t>{1, 0, 0, 1}));
    }
};

QTEST_GUILESS_MAIN(TestSegmentationConfusion)
#include "tst_segmentationconfusion.moc"

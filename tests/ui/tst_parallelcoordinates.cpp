// Parallel coordinates over 500 runs: an axis per key that differs (log for a learning rate
// spanning decades, categories for the optimizer, linear for batch size) and the metric last;
// brushing a range, by call or by dragging with the mouse, selects exactly the runs inside
// every brush; a click on the axis clears it. The redraw is benchmarked (QBENCHMARK), not
// asserted: the machine's speed is not the test's business.
#include "runs/parallelcoordinates.h"
#include "store/runrecord.h"

#include <QImage>
#include <QSignalSpy>
#include <QtTest>

#include <cmath>

using namespace tb;
using namespace tb::ui;

namespace {

std::vector<RunRecord> fiveHundredRuns() {
    std::vector<RunRecord> runs;
    for (int i = 0; i < 500; ++i) {
        RunRecord r;
        r.id = "run-" + std::to_string(i);
        const double lr = std::pow(10.0, -4.0 + 3.0 * (i % 50) / 49.0); // 1e-4 .. 1e-1
        r.config = {{"lr", lr},
                    {"batch_size", 16 << (i % 5)},
                    {"optimizer", i % 2 ? "adamw" : "sgd"},
                    {"seed", 1},
                    {"checkpoint_dir", "/tmp/sweep/trial-" + std::to_string(i)}};
        r.bestValAcc = 0.5 + 0.4 * (i % 50) / 49.0;
        runs.push_back(r);
    }
    return runs;
}

} // namespace

class TestParallelCoordinates : public QObject {
    Q_OBJECT

private slots:
    void axesFitTheKeys() {
        ParallelCoordinates view;
        view.setRuns(fiveHundredRuns());
        QStringList keys;
        for (const ParallelAxis& a : view.axes())
            keys << a.key();
        // The differing keys (seed is the same everywhere; checkpoint_dir, though different in
        // each, says where a run went, not how it trained), the metric last.
        QCOMPARE(keys, (QStringList{"batch_size", "lr", "optimizer", "best_val_acc"}));
        QCOMPARE(view.axes()[0].kind(), ParallelAxis::Kind::Linear);
        QCOMPARE(view.axes()[1].kind(), ParallelAxis::Kind::Log);
        QCOMPARE(view.axes()[2].kind(), ParallelAxis::Kind::Categories);
        QCOMPARE(view.axes()[2].categories(), (QStringList{"adamw", "sgd"}));
        // Five batch sizes: labelled at each, not at even fifths of 16..256.
        QStringList batchLabels;
        for (const auto& [fraction, text] : view.axes()[0].ticks())
            batchLabels << text;
        QCOMPARE(batchLabels, (QStringList{"16", "32", "64", "128", "256"}));
        QCOMPARE(view.axes()[0].ticks()[1].first, 16.0 / 240.0);
        // lr 1e-4 .. 1e-1 on a log axis: 1e-2.5 (run 25 has ~10^-2.47) near the middle.
        QVERIFY(std::abs(*view.fractionOf("run-0", "lr") - 0.0) < 1e-9);
        QVERIFY(std::abs(*view.fractionOf("run-49", "lr") - 1.0) < 1e-9);
        QVERIFY(std::abs(*view.fractionOf("run-25", "lr") - 25.0 / 49.0) < 1e-9);
        view.setMetric("final_val_loss"); // no run has it: an empty axis, lines end before it
        QCOMPARE(view.axes().back().key(), QStringLiteral("final_val_loss"));
        QVERIFY(!view.fractionOf("run-0", "final_val_loss"));
    }

    void brushesSelectTheRunsInsideAll() {
        ParallelCoordinates view;
        view.setRuns(fiveHundredRuns());
        QSignalSpy brushed(&view, &ParallelCoordinates::brushed);
        QCOMPARE(view.brushedRunIds().size(), 500); // no brush: every run
        view.setBrush("optimizer", 0.9, 1.1);       // sgd, the top category
        QCOMPARE(brushed.count(), 1);
        QCOMPARE(view.brushedRunIds().size(), 250);
        view.setBrush("best_val_acc", 1.0, 0.8); // ends in either order
        const QStringList both = view.brushedRunIds();
        for (const QString& id : both) {
            const int i = id.mid(4).toInt();
            QVERIFY(i % 2 == 0 && (i % 50) >= 39);
        }
        QCOMPARE(both.size(), 50); // 10 of every 50 in the top fifth, half of them sgd
        QCOMPARE(brushed.last().first().toStringList(), both);
        view.clearBrushes();
        QCOMPARE(view.brushedRunIds().size(), 500);
    }

    void draggingAlongAnAxisBrushesIt() {
        ParallelCoordinates view;
        view.resize(1000, 420);
        view.setRuns(fiveHundredRuns());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QWidget* canvas = view.canvas();
        QSignalSpy brushed(&view, &ParallelCoordinates::brushed);
        // The optimizer axis is the third of four, evenly spaced between the margins; drag over
        // its upper half (sgd at the top).
        const int left = 56, right = canvas->width() - 72;
        const int x = left + (right - left) * 2 / 3;
        QTest::mousePress(canvas, Qt::LeftButton, {}, QPoint(x, 20));
        QTest::mouseMove(canvas, QPoint(x, canvas->height() / 3));
        QTest::mouseMove(canvas, QPoint(x, canvas->height() / 2));
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, QPoint(x, canvas->height() / 2));
        QVERIFY(brushed.count() >= 1);
        QCOMPARE(view.brushedRunIds().size(), 250);
        QVERIFY(view.brushedRunIds().contains("run-0")); // sgd
        QTest::mouseClick(canvas, Qt::LeftButton, {}, QPoint(x, canvas->height() / 2));
        QCOMPARE(view.brushedRunIds().size(), 500); // a click clears the axis's brush
    }

    void redrawFiveHundredRuns() {
        ParallelCoordinates view;
        view.resize(1280, 480);
        view.setRuns(fiveHundredRuns());
        view.setSelectedRunIds({"run-1", "run-2"});
        view.setBrush("optimizer", 0.9, 1.0);
        QImage image(view.canvas()->size(), QImage::Format_ARGB32_Premultiplied);
        QBENCHMARK {
            view.canvas()->render(&image);
        }
    }
};

QTEST_MAIN(TestParallelCoordinates)
#include "tst_parallelcoordinates.moc"

// A detector's Predictions: a short yolov8n run on shapes-detect turns the tab to the detection
// page (per-class table, precision-recall curves, the confusion matrix with its background, the
// validation images with boxes); the gallery loads the checkpoint, detects the validation
// images once and filters the boxes by the confidence slider; Try it detects in an opened
// image and says why it cannot open a file that is not one; the set-up panel counts a
// detection set's boxes and draws them with their names, as they are and as training draws them.
#include "charts/prcurvechart.h"
#include "data/imagecodec.h"
#include "data/shapesdetect.h"
#include "predictions/boxpainter.h"
#include "predictions/confusionmodel.h"
#include "predictions/detectiongallery.h"
#include "predictions/detectionpage.h"
#include "predictions/predictionspanel.h"
#include "setup/datasetpanel.h"
#include "support/runlog.h"
#include "train/trainer.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QListWidget>
#include <QSlider>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

#include <cmath>

using namespace tb;
using namespace tb::ui;

namespace {

// Pixels of `image` whose colour is `color` (the boxes' pens, not anti-aliased edges).
int pixelsOf(const QImage& image, const QColor& color) {
    int n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            n += image.pixelColor(x, y) == color ? 1 : 0;
    return n;
}

RgbImage blackImage(int side) {
    RgbImage image;
    image.width = image.height = side;
    image.pixels.assign(static_cast<std::size_t>(side * side * 3), 0);
    return image;
}

DetectedBox detected(int classIndex, float confidence, float x1, float y1, float x2, float y2) {
    DetectedBox b;
    b.classIndex = classIndex;
    b.confidence = confidence;
    b.x1 = x1;
    b.y1 = y1;
    b.x2 = x2;
    b.y2 = y2;
    return b;
}

} // namespace

class TestDetectionPage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        RunConfig c;
        c.set("dataset", "shapes-detect"); // yolov8n and Ultralytics' recipe
        c.set("data.imgsz", "64");
        c.set("data.synthetic_samples", "40"); // 4 validation images
        c.set("batch_size", "8");
        c.set("max_epochs", "1");
        c.set("warmup_steps", "0");
        c.set("threads", "2");
        c.set("checkpoint_dir", m_dir.filePath("ckpt").toStdString());
        const RunFinishedEvent f = Trainer(c, m_run).run();
        QVERIFY2(f.status == RunStatus::Completed, f.error.c_str());
        m_checkpoint = QString::fromStdString(f.checkpoint);
        QVERIFY(m_run.epochs.at(0).validation.detection.has_value());
    }

    void detectorEpochsTurnTheTabToDetection() {
        PredictionsPanel panel;
        panel.resize(1280, 700);
        panel.QWidget::show(); // the panel's own show() shows an epoch
        panel.beginRun(QStringLiteral("yolo-run"));
        QVERIFY(!panel.showsDetector());
        panel.addEpochs(m_run.epochs);
        panel.setCheckpoint(m_checkpoint);
        QVERIFY(panel.showsDetector());
        const DetectionReport& d = *m_run.epochs[0].validation.detection;
        auto* picker = panel.findChild<QComboBox*>(QStringLiteral("predictions-epoch"));
        QVERIFY(picker->currentText().contains(QStringLiteral("mAP50-95")));
        const QString summary = panel.findChild<QLabel*>("predictions-summary")->text();
        QVERIFY2(summary.contains(QStringLiteral("mAP50-95 %1").arg(d.map5095, 0, 'f', 3)),
                 qPrintable(summary));

        DetectionPage* page = panel.detectionPage();
        QTableWidget* table = page->classTable();
        QCOMPARE(table->rowCount(), static_cast<int>(d.classes.size()) + 1);
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("all"));
        QCOMPARE(table->item(0, 1)->text(), QString::number(d.instances));
        QCOMPARE(table->item(0, 5)->text(), QString::number(d.map5095, 'f', 3));
        QCOMPARE(table->item(1, 0)->text(), QString::fromStdString(d.classes[0].name));

        // A curve per class with ground truth, and the mean.
        QCOMPARE(page->curves()->classGraphs().size(), d.classes.size());
        QVERIFY(page->curves()->meanGraph());
        QCOMPARE(page->curves()->meanGraph()->dataCount(), 101);
        table->setCurrentCell(1, 0); // a class picked: its curve drawn thick
        QCOMPARE(page->curves()->classGraphs()[0]->pen().widthF(), 2.5);

        // The matrix with the background: 5 classes + background rows, + recall column.
        ConfusionModel* m = page->confusionModel();
        QVERIFY(m->hasBackground());
        QCOMPARE(m->rowCount(), 6);
        QCOMPARE(m->columnCount(), 7);
        QCOMPARE(m->headerData(5, Qt::Vertical).toString(), QStringLiteral("background"));
        QCOMPARE(m->headerData(5, Qt::Horizontal).toString(), QStringLiteral("bg"));
        QVERIFY(std::isnan(m->recall(5)));
        QVERIFY(m->data(m->index(5, 0), Qt::ToolTipRole)
                    .toString()
                    .startsWith(QStringLiteral("False positives")));
        QVERIFY(m->data(m->index(0, 5), Qt::ToolTipRole)
                    .toString()
                    .startsWith(QStringLiteral("Missed")));
        qlonglong total = 0;
        for (int t = 0; t < 5; ++t)
            for (int p = 0; p < 6; ++p)
                total += m->data(m->index(t, p), Qt::UserRole).toLongLong();
        QCOMPARE(total, static_cast<qlonglong>(d.instances));

        // The gallery follows the run's checkpoint.
        DetectionGallery* gallery = page->gallery();
        QTRY_VERIFY_WITH_TIMEOUT(gallery->modelReady(), 60000);
        QCOMPARE(gallery->checkpoint(), m_checkpoint);
        QCOMPARE(gallery->images().size(), std::size_t{4});
        QCOMPARE(gallery->grid()->count(), 4);
        QVERIFY(!gallery->grid()->item(0)->icon().isNull());
        QVERIFY(gallery->shownImage());
        QVERIFY(!gallery->preview()->pixmap().isNull());
        QVERIFY2(gallery->status().contains(QStringLiteral("yolov8n")),
                 qPrintable(gallery->status()));
        for (const GalleryImage& image : gallery->images()) {
            QVERIFY(!image.truth.empty()); // every scene has a shape
            for (const DetectedBox& b : image.detections)
                QVERIFY(b.confidence >= kGalleryMinConfidence);
        }

        panel.beginRun(QStringLiteral("another"));
        QVERIFY(!panel.showsDetector());
        QCOMPARE(page->classTable()->rowCount(), 0);
    }

    // The slider hides what is below it, live, without running the model.
    void confidenceFiltersTheBoxes() {
        DetectionGallery gallery;
        GalleryImage image;
        image.image = blackImage(100);
        image.detections = {detected(0, 0.9f, 10, 10, 40, 40), detected(1, 0.4f, 50, 50, 90, 90),
                            detected(2, 0.1f, 5, 60, 30, 95)};
        gallery.setConfidence(0.25f);
        QCOMPARE(gallery.confidenceSlider()->value(), 25);
        QCOMPARE(gallery.shownDetections(image), 2);
        gallery.setConfidence(0.5f);
        QCOMPARE(gallery.shownDetections(image), 1);
        gallery.setConfidence(0.05f);
        QCOMPARE(gallery.shownDetections(image), 3);
        // Drawn: the boxes above the threshold in their class colours, the others not at all.
        const QImage high =
            paintDetections(image.image, {}, image.detections, {"a", "b", "c"}, 0.5f, 100);
        const QImage low =
            paintDetections(image.image, {}, image.detections, {"a", "b", "c"}, 0.05f, 100);
        QVERIFY(pixelsOf(high, boxColor(0)) > 0);
        QCOMPARE(pixelsOf(high, boxColor(1)), 0);
        QVERIFY(pixelsOf(low, boxColor(1)) > 0);
        QVERIFY(pixelsOf(low, boxColor(2)) > 0);
    }

    // Try it: an opened image is detected and shown large; a file that is not an image is
    // refused in words, and so is an image before any model.
    void tryItDetectsInAnOpenedImage() {
        DetectionGallery none;
        QVERIFY(!none.openImage(m_dir.filePath("x.png")));
        QVERIFY(none.status().contains(QStringLiteral("no model")));

        DetectionGallery gallery;
        gallery.resize(500, 700);
        gallery.show();
        gallery.setCheckpoint(m_checkpoint);
        QTRY_VERIFY_WITH_TIMEOUT(gallery.modelReady(), 60000);
        const ShapesDetectSource scenes(1, 200, 99, "scene");
        const LabeledImage scene = scenes.load(0);
        const QString path = m_dir.filePath("scene.png");
        QVERIFY(toQImage(scene.image).save(path));
        QVERIFY(gallery.openImage(path));
        QCOMPARE(gallery.shownImage()->name, std::string("scene.png"));
        QCOMPARE(gallery.shownImage()->image.width, 200);
        for (const DetectedBox& b : gallery.shownImage()->detections) // in the image's pixels
            QVERIFY(b.x1 >= 0 && b.x2 <= 200 && b.y1 >= 0 && b.y2 <= 200 && b.x1 <= b.x2);
        gallery.grid()->setCurrentRow(1); // a validation image replaces it
        QCOMPARE(gallery.shownImage(), &gallery.images()[1]);

        QFile bad(m_dir.filePath("bad.png"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("not a png");
        bad.close();
        QVERIFY(!gallery.openImage(bad.fileName()));
        QVERIFY2(gallery.status().startsWith(QStringLiteral("Cannot open")),
                 qPrintable(gallery.status()));
    }

    // The set-up panel: a detection set's samples with their boxes drawn in class colours.
    void setupShowsTheBoxes() {
        DatasetPanel panel;
        DataConfig data;
        data.name = "shapes-detect";
        data.syntheticSamples = 40;
        panel.setDataConfig(data);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.loading() && panel.facts().ok, 60000);
        const QImage grid = panel.facts().grid;
        QCOMPARE(grid.width(), 320);
        QCOMPARE(grid.height(), 160); // 8 scenes in two rows
        int coloured = 0;
        for (int c = 0; c < 5; ++c)
            coloured += pixelsOf(grid, boxColor(c));
        QVERIFY(coloured > 100);
        // The boxes counted, as dataset-info counts them, and the grid as training draws it.
        const QString boxes = panel.facts().boxes;
        QVERIFY2(boxes.contains(QStringLiteral("training images")) &&
                     boxes.contains(QStringLiteral("COCO's sizes at 128 px")) &&
                     boxes.contains(QStringLiteral("circle ")),
                 qPrintable(boxes));
        auto* augmented = panel.findChild<QCheckBox*>(QStringLiteral("dataset-augmented"));
        QVERIFY(augmented && !augmented->isHidden());
        const QImage drawn = panel.facts().augmentedGrid;
        QCOMPARE(drawn.size(), grid.size());
        QVERIFY(drawn != grid);
        auto* samples = panel.findChild<QLabel*>(QStringLiteral("dataset-samples"));
        augmented->setChecked(true);
        QCOMPARE(samples->pixmap().toImage(),
                 drawn.convertToFormat(samples->pixmap().toImage().format()));
        augmented->setChecked(false);
        QCOMPARE(samples->pixmap().toImage(),
                 grid.convertToFormat(samples->pixmap().toImage().format()));
    }

private:
    QTemporaryDir m_dir;
    test::RunLog m_run;
    QString m_checkpoint;
};

QTEST_MAIN(TestDetectionPage)
#include "tst_detectionpage.moc"

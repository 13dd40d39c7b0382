// A segmentation's Predictions: a short U-Net run on shapes-seg turns the tab to the
// segmentation page (the per-class table with "all" first, the confusion matrix over pixels,
// the validation images the epoch scored worst with their true and predicted masks); the
// validation chart draws mIoU beside the pixel accuracy and marks the best mIoU; the gallery
// loads the checkpoint once and fades the masks by the opacity slider; Try it segments an
// opened image and says why it cannot open a file that is not one; the set-up panel gives each
// class's share of the pixels and draws the masks over the images, as they are and as training
// draws them.
#include "charts/validationchart.h"
#include "data/maskcodec.h"
#include "data/shapesseg.h"
#include "predictions/boxpainter.h"
#include "predictions/confusionmodel.h"
#include "predictions/maskpainter.h"
#include "predictions/predictionspanel.h"
#include "predictions/segmentationgallery.h"
#include "predictions/segmentationpage.h"
#include "setup/datasetpanel.h"
#include "status/logpanel.h"
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

// Pixels of `image` whose colour is `color`.
int pixelsOf(const QImage& image, const QColor& color) {
    int n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            n += image.pixelColor(x, y) == color ? 1 : 0;
    return n;
}

QColor vocColor(int c) {
    const auto& rgb = vocPalette()[static_cast<std::size_t>(c)];
    return QColor(rgb[0], rgb[1], rgb[2]);
}

} // namespace

class TestSegmentationPage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        RunConfig c;
        c.set("dataset", "shapes-seg");         // unet at 32 px, AdamW
        c.set("data.synthetic_samples", "200"); // 20 validation images
        c.set("model.width", "8");
        c.set("model.depth", "2");
        c.set("max_epochs", "2");
        c.set("threads", "2");
        c.set("checkpoint_dir", m_dir.filePath("ckpt").toStdString());
        const RunFinishedEvent f = Trainer(c, m_run).run();
        QVERIFY2(f.status == RunStatus::Completed, f.error.c_str());
        m_checkpoint = QString::fromStdString(f.checkpoint);
        QVERIFY(m_run.epochs.at(0).validation.segmentation.has_value());
    }

    void segmentationEpochsTurnTheTabToSegmentation() {
        PredictionsPanel panel;
        panel.resize(1280, 760);
        panel.QWidget::show(); // the panel's own show() shows an epoch
        panel.beginRun(QStringLiteral("unet-run"));
        QVERIFY(!panel.showsSegmentation());
        panel.addEpochs(m_run.epochs);
        panel.setCheckpoint(m_checkpoint);
        QVERIFY(panel.showsSegmentation());
        const SegmentationReport& r = *m_run.epochs.back().validation.segmentation;
        auto* picker = panel.findChild<QComboBox*>(QStringLiteral("predictions-epoch"));
        QCOMPARE(picker->count(), 2);
        QVERIFY(
            picker->currentText().contains(QStringLiteral("mIoU %1").arg(r.meanIoU, 0, 'f', 3)));
        const QString summary = panel.findChild<QLabel*>("predictions-summary")->text();
        QVERIFY2(summary.contains(QStringLiteral("mean IoU %1").arg(r.meanIoU, 0, 'f', 3)) &&
                     summary.contains(QStringLiteral("20 validation images")),
                 qPrintable(summary));

        SegmentationPage* page = panel.segmentationPage();
        QTableWidget* table = page->classTable();
        QCOMPARE(table->rowCount(), 7); // all, background and the five shapes
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("all"));
        QCOMPARE(table->item(0, 1)->text(), QString::number(r.meanIoU, 'f', 3));
        QCOMPARE(table->item(0, 2)->text(), QString::number(r.pixelAccuracy, 'f', 3));
        QCOMPARE(table->item(1, 0)->text(), QStringLiteral("background"));
        QCOMPARE(table->item(1, 1)->text(), QString::number(r.iou[0], 'f', 3));
        // A matrix over pixels: every counted pixel once, each row's recall the class accuracy.
        ConfusionModel* m = page->confusionModel();
        QVERIFY(!m->hasBackground());
        QCOMPARE(m->rowCount(), 6);
        qlonglong total = 0;
        for (int t = 0; t < 6; ++t)
            for (int p = 0; p < 6; ++p)
                total += m->data(m->index(t, p), Qt::UserRole).toLongLong();
        QCOMPARE(total, static_cast<qlonglong>(r.pixels));
        QCOMPARE(m->recall(0), r.classAccuracy[0]);

        // The gallery follows the run's checkpoint with the epoch's worst images first.
        SegmentationGallery* gallery = page->gallery();
        QTRY_VERIFY_WITH_TIMEOUT(gallery->modelReady(), 60000);
        QCOMPARE(gallery->checkpoint(), m_checkpoint);
        QCOMPARE(gallery->images().size(), std::size_t{SegmentationGallery::kImages});
        QCOMPARE(gallery->images().front().index, r.worstImages.front().index);
        QCOMPARE(gallery->grid()->count(), SegmentationGallery::kImages);
        QVERIFY(gallery->grid()->item(0)->text().startsWith(QStringLiteral("mIoU ")));
        QVERIFY(!gallery->grid()->item(0)->icon().isNull());
        QVERIFY(!gallery->truthView()->pixmap().isNull());
        QVERIFY(!gallery->predictedView()->pixmap().isNull());
        QVERIFY2(gallery->legend()->text().contains(QStringLiteral("circle")),
                 qPrintable(gallery->legend()->text()));
        for (const SegmentedGalleryImage& image : gallery->images()) {
            QCOMPARE(image.predicted.width, image.image.width);
            QCOMPARE(image.truth.width, image.image.width);
            QVERIFY(image.meanIoU >= 0.0 && image.meanIoU <= 1.0);
        }
        // The gallery's scores are at the images' own size: still the same images' ranking
        // as the epoch's (the first listed is among the three worst here too).
        double below = 0;
        for (const SegmentedGalleryImage& image : gallery->images())
            below += image.meanIoU < gallery->images().front().meanIoU ? 1 : 0;
        QVERIFY(below <= 2);

        panel.beginRun(QStringLiteral("another"));
        QVERIFY(!panel.showsSegmentation());
        QCOMPARE(page->classTable()->rowCount(), 0);
    }

    // The chart: pixel accuracy and mIoU, the best epoch marked by its mIoU.
    void validationChartDrawsMeanIoU() {
        ValidationChart chart;
        chart.addEpochs(m_run.epochs);
        QVERIFY(chart.showsSegmentation());
        QCOMPARE(chart.meanIoUGraph()->dataCount(), 2);
        QCOMPARE(chart.meanIoUGraph()->data()->at(1)->value,
                 m_run.epochs[1].validation.segmentation->meanIoU * 100.0);
        QCOMPARE(chart.valAccGraph()->name(), QStringLiteral("pixel acc"));
        QVERIFY(chart.bestLabel()->text().startsWith(QStringLiteral("best mIoU")));
        chart.reset();
        QVERIFY(!chart.showsSegmentation());

        // The log's last line names the best epoch by its mIoU.
        LogPanel log;
        RunFinishedEvent finished;
        finished.summary.bestEpoch = 2;
        finished.summary.bestValAcc = 0.9467;
        log.addRunEnding(finished, false, 0.368);
        QVERIFY2(log.plainText().contains(
                     QStringLiteral("best mIoU 0.368 at epoch 2 (pixel accuracy 94.67%)")),
                 qPrintable(log.plainText()));
    }

    // The slider fades the masks: at 0 the image alone, at 1 the classes' own colours.
    void opacityFadesTheMasks() {
        RgbImage image;
        image.width = image.height = 8;
        image.pixels.assign(8 * 8 * 3, 0);
        ClassMask mask{8, 8, std::vector<uint8_t>(64, 0)};
        for (int i = 0; i < 16; ++i)
            mask.classes[static_cast<std::size_t>(i)] = 2; // the top two rows
        const QImage none = paintMask(image, &mask, 0.0f, 8);
        const QImage full = paintMask(image, &mask, 1.0f, 8);
        QCOMPARE(pixelsOf(none, Qt::black), 64);
        QCOMPARE(pixelsOf(full, vocColor(2)), 16);
        QCOMPARE(pixelsOf(full, Qt::black), 48); // the background stays the image
        // Grown by whole pixels: an 8 px mask drawn at 64 px keeps its boundary sharp.
        QCOMPARE(pixelsOf(paintMask(image, &mask, 1.0f, 64), vocColor(2)), 16 * 64);
        SegmentationGallery gallery;
        gallery.setOpacity(0.3f);
        QCOMPARE(gallery.opacitySlider()->value(), 30);
        QCOMPARE(gallery.opacity(), 0.3f);
    }

    // Try it: an opened image is segmented at its own size; a file that is not an image is
    // refused in words, and so is an image before any model.
    void tryItSegmentsAnOpenedImage() {
        SegmentationGallery none;
        QVERIFY(!none.openImage(m_dir.filePath("x.png")));
        QVERIFY(none.status().contains(QStringLiteral("no model")));

        SegmentationGallery gallery;
        gallery.resize(700, 500);
        gallery.show();
        gallery.setCheckpoint(m_checkpoint);
        QTRY_VERIFY_WITH_TIMEOUT(gallery.modelReady(), 60000);
        QCOMPARE(gallery.images().front().index, int64_t{0}); // no epoch named: the first
        SegmentedImage scene;
        ShapesSegSource(1, 48, 99, "scene").load(0, scene);
        const QString path = m_dir.filePath("scene.png");
        QVERIFY(toQImage(scene.image).save(path));
        QVERIFY(gallery.openImage(path));
        QCOMPARE(gallery.shownImage()->name, std::string("scene.png"));
        QCOMPARE(gallery.shownImage()->predicted.width, 48);
        QCOMPARE(gallery.shownImage()->predicted.height, 48);
        QVERIFY2(gallery.caption()->text().contains(QStringLiteral("background")),
                 qPrintable(gallery.caption()->text()));
        gallery.grid()->setCurrentRow(1); // a validation image replaces it
        QCOMPARE(gallery.shownImage(), &gallery.images()[1]);

        QFile bad(m_dir.filePath("bad.png"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("not a png");
        bad.close();
        QVERIFY(!gallery.openImage(bad.fileName()));
        QVERIFY2(gallery.status().startsWith(QStringLiteral("Cannot open")),
                 qPrintable(gallery.status()));

        // An opened image, then a checkpoint that cannot load: its image goes with its model.
        QVERIFY(gallery.openImage(path));
        gallery.setCheckpoint(m_dir.filePath("missing.safetensors"));
        QTRY_VERIFY_WITH_TIMEOUT(gallery.status().startsWith(QStringLiteral("Cannot use")), 60000);
        QVERIFY(!gallery.modelReady());
        QVERIFY(!gallery.shownImage());
    }

    // The set-up panel: each class's share of the pixels, and the masks over the images.
    void setupShowsTheMasks() {
        DatasetPanel panel;
        DataConfig data;
        data.name = "shapes-seg";
        data.syntheticSamples = 40;
        data.imageSize = 32;
        data.augment = true;
        panel.setDataConfig(data);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.loading() && panel.facts().ok, 60000);
        const QImage grid = panel.facts().grid;
        QCOMPARE(grid.width(), 320);
        QCOMPARE(grid.height(), 160); // 8 scenes in two rows
        const QString pixels = panel.facts().boxes;
        QVERIFY2(pixels.contains(QStringLiteral("Pixels of the 40 training images")) &&
                     pixels.contains(QStringLiteral("background ")) &&
                     pixels.contains(QStringLiteral("% ignored")),
                 qPrintable(pixels));
        auto* augmented = panel.findChild<QCheckBox*>(QStringLiteral("dataset-augmented"));
        QVERIFY(augmented && !augmented->isHidden());
        const QImage drawn = panel.facts().augmentedGrid;
        QCOMPARE(drawn.size(), grid.size());
        QVERIFY(drawn != grid);
    }

private:
    QTemporaryDir m_dir;
    test::RunLog m_run;
    QString m_checkpoint;
};

QTEST_MAIN(TestSegmentationPage)
#include "tst_segmentationpage.moc"

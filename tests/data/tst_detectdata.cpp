// Detection sets: the seeded shapes-detect scenes (deterministic, boxes that bound the drawn
// shapes), the YOLO folder and COCO JSON readers with every bad input the issue names (what
// stops with file and line or JSON path, what is skipped with a warning), DetectionDataset's
// samples and the DataLoader's box targets, and the config keys.
#include "backend/backend.h"
#include "core/errors.h"
#include "data/bitmapfont.h"
#include "data/dataloader.h"
#include "data/datasetexport.h"
#include "data/datasetinfo.h"
#include "data/datasets.h"
#include "data/detectiondataset.h"
#include "data/detectionfiles.h"
#include "data/rawsplits.h"
#include "data/shapesdetect.h"
#include "imagefiles.h"
#include "support/testdata.h"
#include "train/runconfig.h"

#include <QtTest>

#include <fstream>

using namespace tb;
using namespace tb::test;

namespace {

void writeText(const QString& path, const std::string& text) {
    QDir().mkpath(QFileInfo(path).path());
    std::ofstream(path.toStdString()) << text;
}

// A YOLO set: 2 classes; train a.png (two boxes), b.jpg (no label file: background), val c.png.
QString writeYoloSet(const QString& root) {
    for (const char* dir : {"images/train", "images/val", "labels/train", "labels/val"})
        QDir().mkpath(root + "/" + dir);
    const std::string r = root.toStdString();
    writeSolidPng(r + "/images/train/a.png", 40, 20, 3, {10, 20, 30});
    writeGreyJpeg(r + "/images/train/b.jpg", 16, 16);
    writeSolidPng(r + "/images/val/c.png", 32, 32, 3, {200, 0, 0});
    writeText(root + "/labels/train/a.txt", "0 0.5 0.5 0.5 0.5\n1 0.25 0.25 0.1 0.2\n");
    writeText(root + "/labels/val/c.txt", "1 0.5 0.5 1 1\n");
    writeText(root + "/data.yaml", "path: .\ntrain: images/train\nval: images/val\n"
                                   "names:\n  0: cat\n  1: dog\n");
    return root + "/data.yaml";
}

// What an opening throws, or "" when it opens.
template <typename F> QString errorOf(F&& open) {
    try {
        open();
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

bool anyContains(const std::vector<std::string>& lines, const QString& text) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
        return QString::fromStdString(l).contains(text);
    });
}

const char* kCoco = R"({
  "images": [{"id": 7, "file_name": "x.png", "width": 40, "height": 20},
             {"id": 9, "file_name": "y.png", "width": 32, "height": 32}],
  "annotations": [
    {"id": 1, "image_id": 7, "category_id": 18, "bbox": [4, 2, 20, 10], "iscrowd": 0},
    {"id": 2, "image_id": 7, "category_id": 3, "bbox": [0, 0, 40, 20], "iscrowd": 1},
    {"id": 3, "image_id": 9, "category_id": 3, "bbox": [8, 8, 16, 8]}],
  "categories": [{"id": 18, "name": "dog"}, {"id": 3, "name": "car"}]
})";

QString writeCocoSet(const QString& root, const std::string& json = kCoco) {
    QDir().mkpath(root + "/annotations");
    QDir().mkpath(root + "/val2017");
    writeText(root + "/annotations/instances_val2017.json", json);
    writeSolidPng(root.toStdString() + "/val2017/x.png", 40, 20, 3, {1, 2, 3});
    writeSolidPng(root.toStdString() + "/val2017/y.png", 32, 32, 3, {1, 2, 3});
    return root;
}

} // namespace

class TestDetectData : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { m_backend = createCpuBackend(1); }

    void shapesDetectIsSeeded() {
        const ShapesDetectSource a(20, 96, 5, "a"), b(20, 96, 5, "b"), c(20, 96, 6, "c");
        QCOMPARE(a.classNames(),
                 (std::vector<std::string>{"circle", "square", "triangle", "star", "cross"}));
        bool differs = false;
        int64_t boxes = 0;
        for (int64_t i = 0; i < a.size(); ++i) {
            QCOMPARE(a.load(i).image.pixels, b.load(i).image.pixels);
            QCOMPARE(a.labels(i).boxes.size(), b.labels(i).boxes.size());
            differs = differs || a.labels(i).boxes.size() != c.labels(i).boxes.size();
            const auto& bs = a.labels(i).boxes;
            QVERIFY(!bs.empty() && std::ssize(bs) <= ShapesDetectSource::kMaxObjects);
            boxes += std::ssize(bs);
            for (const LabeledBox& box : bs)
                QVERIFY(box.x1 >= 0 && box.y1 >= 0 && box.x2 <= 1 && box.y2 <= 1 &&
                        box.width() > 0.02f && box.height() > 0.02f);
        }
        QVERIFY(differs);        // another seed, other scenes
        QVERIFY(boxes > 2 * 20); // several objects per image on average
        QCOMPARE(maxBoxesPerImage(a) <= ShapesDetectSource::kMaxObjects, true);
    }

    // A scene of one shape: the pixels that differ from the background's brightness fill its
    // box (2x2 supersampled edges count when about half covered).
    void shapesDetectBoxesBoundTheShapes() {
        const int size = 128;
        const ShapesDetectSource set(300, size, 11, "t");
        int checked = 0;
        for (int64_t i = 0; i < set.size() && checked < 12; ++i) {
            if (set.labels(i).boxes.size() != 1)
                continue;
            const LabeledImage img = set.load(i);
            const LabeledBox& box = img.boxes[0];
            // Background brightness from the corner farthest from the box.
            const int cx = box.x1 + box.x2 > size ? 0 : size - 1;
            const int cy = box.y1 + box.y2 > size ? 0 : size - 1;
            auto value = [&](int x, int y) {
                const uint8_t* p = &img.image.pixels[(static_cast<std::size_t>(y) * size + x) * 3];
                return std::max({p[0], p[1], p[2]});
            };
            const bool darkBackground = value(cx, cy) < 128;
            LabeledBox found{0, 1e9f, 1e9f, -1e9f, -1e9f};
            for (int y = 0; y < size; ++y)
                for (int x = 0; x < size; ++x) {
                    const int v = value(x, y);
                    if (darkBackground ? v < 140 : v > 110)
                        continue;
                    found.x1 = std::min(found.x1, static_cast<float>(x));
                    found.y1 = std::min(found.y1, static_cast<float>(y));
                    found.x2 = std::max(found.x2, static_cast<float>(x + 1));
                    found.y2 = std::max(found.y2, static_cast<float>(y + 1));
                }
            // Within two pixels: a star's point or a triangle's apex covers less than half of
            // its last pixel, which the threshold then does not count.
            QVERIFY2(std::abs(found.x1 - box.x1) <= 2 && std::abs(found.x2 - box.x2) <= 2 &&
                         std::abs(found.y1 - box.y1) <= 2 && std::abs(found.y2 - box.y2) <= 2,
                     qPrintable(QString("scene %1: box %2 %3 %4 %5, shape %6 %7 %8 %9")
                                    .arg(i)
                                    .arg(box.x1)
                                    .arg(box.y1)
                                    .arg(box.x2)
                                    .arg(box.y2)
                                    .arg(found.x1)
                                    .arg(found.y1)
                                    .arg(found.x2)
                                    .arg(found.y2)));
            ++checked;
        }
        QVERIFY(checked >= 5);
    }

    void readsYoloFolder() {
        QTemporaryDir dir;
        const auto train = openYoloSplit(writeYoloSet(dir.path()).toStdString(), "train");
        const auto val = openYoloSplit(dir.path().toStdString(), "val"); // the folder works too
        QCOMPARE(train->classNames(), (std::vector<std::string>{"cat", "dog"}));
        QCOMPARE(train->size(), int64_t{2});
        QCOMPARE(val->size(), int64_t{1});
        QCOMPARE(train->imageName(0), std::string("images/train/a.png"));
        QCOMPARE(train->labels(0).boxes.size(), std::size_t{2});
        QVERIFY(train->labels(1).boxes.empty()); // no label file: a background image
        const LabeledImage a = train->load(0);
        QCOMPARE(a.image.width, 40);
        // cx 0.5 w 0.5 of 40 x 20: x 10..30, y 5..15.
        QCOMPARE(a.boxes[0].x1, 10.0f);
        QCOMPARE(a.boxes[0].x2, 30.0f);
        QCOMPARE(a.boxes[0].y1, 5.0f);
        QCOMPARE(a.boxes[0].y2, 15.0f);
        QCOMPARE(a.boxes[1].category, 1);
        QVERIFY(train->warnings().empty());
    }

    // Bad label lines stop with the file and line; the rest are skipped with a warning.
    void yoloBadInput_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("content");
        QTest::addColumn<QString>("error");   // expected in the error, or empty: opens
        QTest::addColumn<QString>("warning"); // expected among the warnings
        const QString label = "labels/train/a.txt";
        QTest::newRow("class beyond names") << label << "0 .5 .5 .2 .2\n2 .5 .5 .2 .2\n"
                                            << "a.txt, line 2: class 2"
                                            << "";
        QTest::newRow("malformed") << label << "0 .5 .5 .2\n"
                                   << "a.txt, line 1: expected"
                                   << "";
        QTest::newRow("not a number") << label << "0 .5 x .2 .2\n"
                                      << "line 1: \"x\" is not a number"
                                      << "";
        QTest::newRow("nan") << label << "\n0 nan .5 .2 .2\n"
                             << "line 2: a value is nan"
                             << "";
        QTest::newRow("fractional class") << label << "0.5 .5 .5 .2 .2\n"
                                          << "line 1: class"
                                          << "";
        QTest::newRow("wholly outside") << label << "0 1.5 .5 .2 .2\n"
                                        << "line 1: the box lies wholly outside"
                                        << "";
        QTest::newRow("zero size") << label << "0 .5 .5 0 .2\n1 .5 .5 .2 .2\n"
                                   << ""
                                   << "a.txt, line 1: a box of zero width or height, skipped";
        QTest::newRow("partly outside") << label << "0 .95 .5 .2 .2\n"
                                        << ""
                                        << "line 1: the box reaches outside the image, clipped";
        QTest::newRow("duplicate") << label << "0 .5 .5 .2 .2\n0 .5 .5 .2 .2\n"
                                   << ""
                                   << "line 2: the same box as an earlier line, skipped";
        QTest::newRow("label without image") << "labels/train/zzz.txt"
                                             << "0 .5 .5 .2 .2\n"
                                             << ""
                                             << "zzz.txt: no image of this name, skipped";
        QTest::newRow("no names") << "data.yaml"
                                  << "train: images/train\nval: images/val\n"
                                  << "data.yaml: names: no class names"
                                  << "";
        QTest::newRow("no folders") << "data.yaml"
                                    << "names: [cat, dog]\n"
                                    << "data.yaml: names no train images"
                                    << "";
        QTest::newRow("missing folder") << "data.yaml"
                                        << "names: [cat, dog]\ntrain: nowhere\n"
                                        << "nowhere: the data.yaml's images are not here"
                                        << "";
        QTest::newRow("nc disagrees") << "data.yaml"
                                      << "nc: 3\nnames: [cat, dog]\ntrain: images/train\n"
                                      << "nc is 3 but names lists 2"
                                      << "";
        QTest::newRow("not yaml") << "data.yaml"
                                  << "names: [cat\ntrain: x\n"
                                  << "data.yaml, line"
                                  << "";
    }
    void yoloBadInput() {
        QFETCH(QString, file);
        QFETCH(QString, content);
        QFETCH(QString, error);
        QFETCH(QString, warning);
        QTemporaryDir dir;
        writeYoloSet(dir.path());
        writeText(dir.path() + "/" + file, content.toStdString());
        std::shared_ptr<FileDetectionSource> opened;
        const QString thrown =
            errorOf([&] { opened = openYoloSplit(dir.path().toStdString(), "train"); });
        if (!error.isEmpty()) {
            QVERIFY2(thrown.contains(error), qPrintable("got: " + thrown));
            return;
        }
        QVERIFY2(thrown.isEmpty(), qPrintable(thrown));
        QVERIFY2(anyContains(opened->warnings(), warning),
                 qPrintable(QString::fromStdString(
                     opened->warnings().empty() ? "(none)" : opened->warnings()[0])));
        for (int64_t i = 0; i < opened->size(); ++i)
            for (const LabeledBox& b : opened->labels(i).boxes)
                QVERIFY(b.width() > 0 && b.x1 >= 0 && b.x2 <= 1); // what is kept is sound
    }

    void readsCocoJson() {
        QTemporaryDir dir;
        const auto val = openCocoSplit(writeCocoSet(dir.path()).toStdString(), "val");
        // Categories in the order of their ids: 3 car, 18 dog.
        QCOMPARE(val->classNames(), (std::vector<std::string>{"car", "dog"}));
        QCOMPARE(val->size(), int64_t{2});
        const auto& x = val->labels(0).boxes;
        QCOMPARE(x.size(), std::size_t{2});
        QCOMPARE(x[0].category, 1);
        QCOMPARE(x[0].x1, 0.1f);
        QCOMPARE(x[0].y2, 0.6f);
        QVERIFY(!x[0].crowd);
        QVERIFY(x[1].crowd); // kept, flagged
        const LabeledImage y = val->load(1);
        QCOMPARE(y.boxes[0].x1, 8.0f);
        QCOMPARE(y.boxes[0].y2, 16.0f);
        // Crowd regions are left out of training's box count and of training samples.
        QCOMPARE(maxBoxesPerImage(*val), int64_t{1});
        QVERIFY_THROWS_EXCEPTION(DatasetError, openCocoSplit(dir.path().toStdString(), "train"));
    }

    void cocoBadInput_data() {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("error");
        QTest::addColumn<QString>("warning");
        QTest::newRow("unknown image") << "\"image_id\": 9"
                                       << "\"image_id\": 10"
                                       << "annotations[2].image_id: 10 is not in images"
                                       << "";
        QTest::newRow("unknown category") << "\"category_id\": 18"
                                          << "\"category_id\": 17"
                                          << "annotations[0].category_id: 17 is not in categories"
                                          << "";
        QTest::newRow("short bbox") << "[8, 8, 16, 8]"
                                    << "[8, 8, 16]"
                                    << "annotations[2].bbox: expected [x, y, width, height]"
                                    << "";
        QTest::newRow("text in bbox") << "[8, 8, 16, 8]"
                                      << "[8, \"8\", 16, 8]"
                                      << "annotations[2].bbox[1]: expected a number"
                                      << "";
        QTest::newRow("no categories") << "\"categories\""
                                       << "\"kategorien\""
                                       << "categories: no \"categories\""
                                       << "";
        QTest::newRow("wholly outside") << "[8, 8, 16, 8]"
                                        << "[40, 8, 16, 8]"
                                        << "annotations[2].bbox: wholly outside"
                                        << "";
        QTest::newRow("not json") << "\"images\": ["
                                  << "\"images\": [["
                                  << "instances_val2017.json"
                                  << "";
        QTest::newRow("zero width") << "[8, 8, 16, 8]"
                                    << "[8, 8, 0, 8]"
                                    << ""
                                    << "annotations[2]: a box of zero width or height, skipped";
        QTest::newRow("partly outside")
            << "[8, 8, 16, 8]"
            << "[20, 8, 16, 8]"
            << ""
            << "annotations[2]: the box reaches outside its image, clipped";
        QTest::newRow("missing image") << "y.png"
                                       << "gone.png"
                                       << ""
                                       << "images[1]: ";
    }
    void cocoBadInput() {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, error);
        QFETCH(QString, warning);
        QTemporaryDir dir;
        const std::string json = QString(kCoco).replace(from, to).toStdString();
        QVERIFY(json != kCoco);
        writeCocoSet(dir.path(), json);
        std::shared_ptr<FileDetectionSource> opened;
        const QString thrown =
            errorOf([&] { opened = openCocoSplit(dir.path().toStdString(), "val"); });
        if (!error.isEmpty()) {
            QVERIFY2(thrown.contains(error), qPrintable("got: " + thrown));
            return;
        }
        QVERIFY2(thrown.isEmpty(), qPrintable(thrown));
        QVERIFY2(anyContains(opened->warnings(), warning),
                 qPrintable(QString::number(opened->warnings().size())));
    }

    // Validation samples: letterboxed, pixels in [0, 1] channels first, boxes as rows, unused
    // rows class -1; crowd regions kept there and left out of training samples.
    void datasetWritesBoxRows() {
        QTemporaryDir dir;
        const auto source = openCocoSplit(writeCocoSet(dir.path()).toStdString(), "val");
        const DetectionDataset val(source, 64, false), train(source, 64, true);
        QCOMPARE(val.sampleShape(), (Shape{3, 64, 64}));
        QCOMPARE(val.maxBoxes(), int64_t{2});
        QCOMPARE(train.maxBoxes(), int64_t{4}); // mosaic: four images of one box each
        QCOMPARE(val.numClasses(), 2);
        QCOMPARE(val.label(0), 1); // the larger non-crowd box's class
        std::vector<float> pixels(3 * 64 * 64), rows(static_cast<std::size_t>(2 * kBoxColumns));
        val.sampleBoxes(0, pixels.data(), rows.data(), 0);
        // 40 x 20 scaled by 1.6 to 64 x 32, padded 16 above: the dog box 4,2..24,12.
        QCOMPARE(rows[0], 1.0f);
        QCOMPARE(rows[1], 6.4f);
        QCOMPARE(rows[2], 2 * 1.6f + 16);
        QCOMPARE(rows[3], 24 * 1.6f);
        QCOMPARE(rows[6 + 5], 1.0f);              // the crowd region, flagged
        QCOMPARE(pixels[0], 114.0f / 255.0f);     // padding grey
        QCOMPARE(pixels[32 * 64], 1.0f / 255.0f); // the image's red channel
        QCOMPARE(pixels[2 * 4096 + 32 * 64], 3.0f / 255.0f);
        val.sampleBoxes(1, pixels.data(), rows.data(), 0);
        QCOMPARE(rows[6], -1.0f); // one box in y.png: the second row unused
        for (uint64_t seed = 0; seed < 10; ++seed) {
            std::vector<float> trainRows(static_cast<std::size_t>(4 * kBoxColumns));
            train.sampleBoxes(0, pixels.data(), trainRows.data(), seed);
            for (int64_t r = 0; r < 4; ++r)
                QCOMPARE(trainRows[static_cast<std::size_t>(r * kBoxColumns + 5)], 0.0f);
        }
    }

    // Batches carry (n, maxBoxes, 6) float targets; the same for any number of workers; with
    // the mosaic closed a training sample is one image.
    void loaderBatchesBoxes() {
        DataConfig config;
        config.name = "shapes-detect";
        config.detectSize = 64;
        config.syntheticSamples = 24;
        const DatasetSplits splits = openDatasets(config, 3);
        QVERIFY(splits.mean.empty()); // pixels in [0, 1], as Ultralytics feeds them
        const auto& train = dynamic_cast<const DetectionDataset&>(*splits.train);
        QVERIFY(train.maxBoxes() >= 4);
        std::vector<Tensor> seen[2];
        for (int workers : {0, 2}) {
            LoaderOptions o;
            o.batchSize = 8;
            o.numWorkers = workers;
            o.seed = 1;
            DataLoader loader(splits.train, o, *m_backend);
            loader.startEpoch(0);
            int batches = 0;
            while (auto b = loader.next()) {
                QCOMPARE(b->labels.dtype(), DType::F32);
                QCOMPARE(b->labels.shape(), (Shape{8, train.maxBoxes(), kBoxColumns}));
                const float* rows = b->labels.data<float>();
                int real = 0;
                for (int64_t r = 0; r < 8 * train.maxBoxes(); ++r) {
                    const float* row = rows + r * kBoxColumns;
                    if (row[0] < 0)
                        continue;
                    ++real;
                    QVERIFY(row[0] < 5 && row[1] >= 0 && row[3] <= 64 && row[1] < row[3] &&
                            row[2] < row[4]);
                }
                QVERIFY(real > 0);
                seen[workers ? 1 : 0].push_back(b->labels);
                ++batches;
            }
            QCOMPARE(batches, 3);
        }
        for (std::size_t i = 0; i < seen[0].size(); ++i)
            QCOMPARE(maxAbsDiff(seen[0][i], seen[1][i]), 0.0f);
        // close_mosaic: one image a sample, so at most that image's boxes.
        train.setMosaic(false);
        std::vector<float> pixels(3 * 64 * 64),
            rows(static_cast<std::size_t>(train.maxBoxes() * kBoxColumns));
        for (int64_t i = 0; i < train.size(); ++i) {
            train.sampleBoxes(i, pixels.data(), rows.data(), static_cast<uint64_t>(i));
            int64_t real = 0;
            for (int64_t r = 0; r < train.maxBoxes(); ++r)
                real += rows[static_cast<std::size_t>(r * kBoxColumns)] >= 0;
            QVERIFY(real <= std::ssize(train.source().labels(i).boxes));
        }
    }

    void configKeys() {
        RunConfig c = RunConfig::fromJson({{"dataset", "shapes-detect"},
                                           {"data.imgsz", 96},
                                           {"data.mosaic", 0.5},
                                           {"data.close_mosaic", 2},
                                           {"data.hsv_h", 0.0}});
        QCOMPARE(c.data.detectSize, 96);
        QCOMPARE(c.data.detectAugment.mosaic, 0.5f);
        QCOMPARE(c.data.closeMosaic, 2);
        QCOMPARE(c.data.detectAugment.hsvH, 0.0f);
        const QString notMultiple = errorOf([] {
            RunConfig::fromJson({{"dataset", "shapes-detect"}, {"data.imgsz", 100}}).validate();
        });
        QVERIFY2(notMultiple.contains("data.imgsz") && notMultiple.contains("multiple of 32"),
                 qPrintable(notMultiple));
        // A detection set asks for a detector and Ultralytics' recipe, where those keys are
        // still at their defaults; keys set on purpose stay.
        RunConfig plain;
        plain.set("dataset", "shapes-detect");
        QCOMPARE(plain.model, std::string("yolov8n"));
        QCOMPARE(plain.optimizer.name, std::string("adamw"));
        QCOMPARE(plain.lr, 0.001f);
        QCOMPARE(plain.gradientClipVal, 10.0f);
        QCOMPARE(inputSizeOf(plain.data), kShapesDetectSize);
        RunConfig chosen;
        chosen.set("lr", "0.01");
        chosen.set("model", "yolov8s");
        chosen.set("dataset", "coco");
        QCOMPARE(chosen.model, std::string("yolov8s"));
        QCOMPARE(chosen.lr, 0.01f);
        QCOMPARE(chosen.optimizer.name, std::string("adamw"));
        QCOMPARE(inputSizeOf(chosen.data), 640); // Ultralytics' imgsz for files
        // An explicit 640 stays 640 whatever comes after it (an experiment's arm sets both).
        RunConfig explicitSize;
        explicitSize.set("data.imgsz", "640");
        explicitSize.set("dataset", "shapes-detect");
        QCOMPARE(inputSizeOf(explicitSize.data), 640);
        DataConfig d;
        d.name = "yolo";
        QVERIFY(errorOf([&] { openDatasets(d, 0); }).contains("data.root"));
    }

    // dataset-export writes both splits in YOLO's and COCO's layouts; our readers get the same
    // images and boxes back.
    void exportRoundTrips_data() {
        QTest::addColumn<QString>("format");
        QTest::newRow("yolo") << "yolo";
        QTest::newRow("coco") << "coco";
    }
    void exportRoundTrips() {
        QFETCH(QString, format);
        QTemporaryDir dir;
        DataConfig config;
        config.name = "shapes-detect";
        config.detectSize = 96;
        config.syntheticSamples = 30;
        const std::string folder = (dir.path() + "/out").toStdString();
        const DetectionExportResult r = exportDetection(config, folder, format.toStdString());
        QCOMPARE(r.images, int64_t{33}); // 30 train, 3 validation
        const RawSplits original = openRawSplits(config, 0);
        for (const char* split : {"train", "val"}) {
            const auto back = format == "yolo"
                                  ? openYoloSplit(folder, split)
                                  : std::shared_ptr<DetectionSource>(openCocoSplit(folder, split));
            const auto& set = dynamic_cast<const DetectionDataset&>(
                std::string(split) == "train" ? *original.train : *original.validation);
            QCOMPARE(back->size(), set.source().size());
            QCOMPARE(back->classNames(), set.source().classNames());
            QVERIFY(back->warnings().empty());
            for (int64_t i = 0; i < back->size(); ++i) {
                QCOMPARE(back->load(i).image.pixels, set.source().load(i).image.pixels);
                const auto& a = back->labels(i).boxes;
                const auto& b = set.source().labels(i).boxes;
                QCOMPARE(a.size(), b.size());
                for (std::size_t k = 0; k < a.size(); ++k) {
                    QCOMPARE(a[k].category, b[k].category);
                    QVERIFY(std::abs(a[k].x1 - b[k].x1) < 1e-6f &&
                            std::abs(a[k].y2 - b[k].y2) < 1e-6f);
                }
            }
        }
        QVERIFY(errorOf([&] {
                    exportDetection(config, folder, format.toStdString());
                }).contains("is not empty"));
        config.name = "shapes";
        QVERIFY(errorOf([&] {
                    exportDetection(config, folder + "2", "yolo");
                }).contains("not a detection set"));
    }

    // dataset-info's counts agree with the labels; the grids are PNGs of the tiles asked for.
    void describesAndDrawsTheSet() {
        QTemporaryDir dir;
        DataConfig config;
        config.name = "shapes-detect";
        config.detectSize = 128;
        config.syntheticSamples = 50;
        const DatasetInfo info = describeDataset(config);
        QVERIFY(info.detection.has_value());
        const DetectionSplitStats& t = info.detection->train;
        QCOMPARE(t.images, int64_t{50});
        int64_t boxes = 0;
        for (int64_t k : t.boxesPerClass)
            boxes += k;
        QCOMPARE(boxes, t.boxes);
        QCOMPARE(t.small + t.medium + t.large, t.boxes);
        QVERIFY(t.small > 0 && t.medium > 0); // radius 4% to 26% of 128 px
        QCOMPARE(info.trainHistogram, t.boxesPerClass);
        for (bool augmented : {false, true}) {
            const QString png = dir.path() + (augmented ? "/batch.png" : "/grid.png");
            writeSampleGrid(config, png.toStdString(), 10, 8, 0, augmented);
            const auto [w, h] = storedImageSize(readWholeFile(png.toStdString()), "grid");
            QCOMPARE(w, 6 * (128 + 4) + 4); // detection tiles: at most 6 x 4
            QCOMPARE(h, 4 * (128 + 4) + 4);
        }
        config.name = "shapes";
        config.imageSize = 16;
        QVERIFY(errorOf([&] {
                    writeSampleGrid(config, "/tmp/x.png", 10, 8, 0, true);
                }).contains("--augmented"));
    }

    void readsImageSizesFromHeaders() {
        QTemporaryDir dir;
        const std::string png = (dir.path() + "/a.png").toStdString();
        const std::string jpg = (dir.path() + "/b.jpg").toStdString();
        writeSolidPng(png, 37, 21, 3, {1, 2, 3});
        writeGreyJpeg(jpg, 45, 17);
        QCOMPARE(storedImageSize(readWholeFile(png), png), std::make_pair(37, 21));
        QCOMPARE(storedImageSize(readWholeFile(jpg), jpg), std::make_pair(45, 17));
        const std::vector<uint8_t> text{'h', 'i'};
        QVERIFY(errorOf([&] { storedImageSize(text, "t"); }).contains("not a PNG or JPEG"));
    }

    void drawsText() {
        std::vector<uint8_t> rgb(20 * 10 * 3, 0);
        const uint8_t white[3] = {255, 255, 255};
        drawText(rgb, 20, 10, 1, 1, "l1", white);
        QCOMPARE(textWidth("l1"), 11);
        int lit = 0;
        for (int y = 0; y < 10; ++y)
            for (int x = 0; x < 20; ++x)
                lit += rgb[(y * 20 + x) * 3] == 255;
        QCOMPARE(lit, 7 + 4 + 10);                     // L: 7 down and 4 along; 1: its 10 pixels
        QCOMPARE(rgb[(1 * 20 + 1) * 3], uint8_t{255}); // L's top-left
    }

private:
    std::unique_ptr<Backend> m_backend;
};

QTEST_GUILESS_MAIN(TestDetectData)
#include "tst_detectdata.moc"

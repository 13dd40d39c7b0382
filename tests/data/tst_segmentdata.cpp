// Segmentation sets: mask PNGs (palette indices, not colours; colour and 16-bit masks refused),
// the seeded shapes-seg scenes (masks that agree with shapes-detect's boxes), VOC's layout and
// images/ + masks/ folders with every bad input the issue names, transforms that move a mask
// with its pixels (nearest neighbour: classes never blend), and SegmentationDataset's samples
// through the DataLoader.
#include "backend/backend.h"
#include "core/errors.h"
#include "data/dataloader.h"
#include "data/datasetexport.h"
#include "data/maskcodec.h"
#include "data/rawsplits.h"
#include "data/segmentationdataset.h"
#include "data/segmentationfiles.h"
#include "data/segmentationinfo.h"
#include "data/shapesseg.h"
#include "data/transforms.h"
#include "imagefiles.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <png.h>

#include <fstream>
#include <set>

using namespace tb;
using namespace tb::test;

namespace {

template <typename F> QString errorOf(F&& open) {
    try {
        open();
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

void writeText(const QString& path, const std::string& text) {
    QDir().mkpath(QFileInfo(path).path());
    std::ofstream(path.toStdString()) << text;
}

// A width x height mask: class `inside` in the rectangle [x0, x1) x [y0, y1), `outside` around.
ClassMask rectangleMask(int width, int height, int x0, int y0, int x1, int y1, uint8_t inside,
                        uint8_t outside = 0) {
    ClassMask m{width, height, {}};
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            m.classes.push_back(x >= x0 && x < x1 && y >= y0 && y < y1 ? inside : outside);
    return m;
}

// The same rectangle drawn white on black, as the mask's image.
void writeRectangleImage(const std::string& path, int width, int height, int x0, int y0, int x1,
                         int y1) {
    std::vector<uint8_t> px;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            for (int c = 0; c < 3; ++c)
                px.push_back(x >= x0 && x < x1 && y >= y0 && y < y1 ? 255 : 0);
    if (path.ends_with(".jpg"))
        writeJpeg(path, width, height, 3, px, 95);
    else
        writePng(path, width, height, 3, px);
}

void writeGreyMask(const std::string& path, const ClassMask& m) {
    writePng(path, m.width, m.height, 1, m.classes);
}

// A 16-bit grey PNG (libpng's simplified API writes linear grey as 16 bits).
void writeSixteenBitGrey(const std::string& path, int width, int height) {
    png_image image;
    std::memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = static_cast<png_uint_32>(width);
    image.height = static_cast<png_uint_32>(height);
    image.format = PNG_FORMAT_LINEAR_Y;
    std::vector<uint16_t> px(static_cast<std::size_t>(width) * height, 1);
    QVERIFY(png_image_write_to_file(&image, path.c_str(), 0, px.data(), 0, nullptr));
}

ClassMask readMask(const std::string& path) {
    ClassMask m;
    decodeMaskInto(readWholeFile(path), path, m);
    return m;
}

// A VOC tree under root/VOCdevkit/VOC2012: train a (a 20x10 rectangle of class 15, person),
// b (all background); val b.
QString writeVoc(const QString& root) {
    const QString voc = root + "/VOCdevkit/VOC2012";
    for (const char* dir : {"JPEGImages", "SegmentationClass", "ImageSets/Segmentation"})
        QDir().mkpath(voc + "/" + dir);
    const std::string v = voc.toStdString();
    writeRectangleImage(v + "/JPEGImages/a.jpg", 40, 30, 10, 10, 30, 20);
    writeMaskPng(v + "/SegmentationClass/a.png", rectangleMask(40, 30, 10, 10, 30, 20, 15));
    writeRectangleImage(v + "/JPEGImages/b.jpg", 24, 24, 0, 0, 0, 0);
    ClassMask b = rectangleMask(24, 24, 0, 0, 0, 0, 0);
    b.classes[0] = kMaskIgnore;
    writeMaskPng(v + "/SegmentationClass/b.png", b);
    writeText(voc + "/ImageSets/Segmentation/train.txt", "a\n\nb\n");
    writeText(voc + "/ImageSets/Segmentation/val.txt", "b\n");
    return voc;
}

// images/ + masks/ + classes.txt with `n` images, image i a rectangle of class 1 + i % 2.
QString writeMaskFolders(const QString& root, int n) {
    QDir().mkpath(root + "/images");
    QDir().mkpath(root + "/masks");
    writeText(root + "/classes.txt", "background\nroad\n\ncar\n");
    for (int i = 0; i < n; ++i) {
        const std::string stem = root.toStdString() + "/%/" + std::to_string(i);
        auto at = [&](const char* folder) {
            std::string s = stem;
            return s.replace(s.find('%'), 1, folder);
        };
        writeRectangleImage(at("images") + ".png", 16, 12, 2, 2, 8, 6);
        writeGreyMask(at("masks") + ".png",
                      rectangleMask(16, 12, 2, 2, 8, 6, static_cast<uint8_t>(1 + i % 2)));
    }
    return root;
}

} // namespace

class TestSegmentData : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { m_backend = createCpuBackend(1); }

    // A palette mask reads back as the indices written, not as its colours; a grey mask as its
    // levels. VOC's colour map: class 1 dark red, 15 (person) pink-grey, 255 cream.
    void masksAreIndicesNotColours() {
        QTemporaryDir dir;
        const std::string palette = dir.filePath("p.png").toStdString();
        ClassMask m = rectangleMask(7, 5, 1, 1, 4, 3, 15);
        m.classes[6] = kMaskIgnore;
        m.classes[7] = 1;
        writeMaskPng(palette, m);
        const ClassMask back = readMask(palette);
        QCOMPARE(back.width, 7);
        QCOMPARE(back.height, 5);
        QCOMPARE(back.classes, m.classes);
        QVERIFY(readMaskHeader(readWholeFile(palette), palette).palette);
        // The file holds VOC's colours: decoded as a picture, class 15 is (192, 128, 128).
        const RgbImage picture = decodeImage(readWholeFile(palette), palette);
        const std::size_t at15 = (1 * 7 + 1) * 3;
        QCOMPARE(
            std::vector<uint8_t>(picture.pixels.begin() + at15, picture.pixels.begin() + at15 + 3),
            (std::vector<uint8_t>{192, 128, 128}));
        QCOMPARE(vocPalette()[1], (std::array<uint8_t, 3>{128, 0, 0}));
        QCOMPARE(vocPalette()[255], (std::array<uint8_t, 3>{224, 224, 192}));

        const std::string grey = dir.filePath("g.png").toStdString();
        writeGreyMask(grey, m);
        QCOMPARE(readMask(grey).classes, m.classes);
        QVERIFY(!readMaskHeader(readWholeFile(grey), grey).palette);
    }

    void badMaskFilesAreNamed() {
        QTemporaryDir dir;
        const std::string rgb = dir.filePath("rgb.png").toStdString();
        writeSolidPng(rgb, 4, 4, 3, {128, 0, 0});
        QString e = errorOf([&] { readMask(rgb); });
        QVERIFY2(e.contains("rgb.png") && e.contains("colour (RGB) mask"), qPrintable(e));

        const std::string deep = dir.filePath("deep.png").toStdString();
        writeSixteenBitGrey(deep, 4, 4);
        e = errorOf([&] { readMask(deep); });
        QVERIFY2(e.contains("deep.png") && e.contains("16-bit grey"), qPrintable(e));

        const std::string jpeg = dir.filePath("m.jpg").toStdString();
        writeGreyJpeg(jpeg, 8, 8);
        e = errorOf([&] { readMask(jpeg); });
        QVERIFY2(e.contains("m.jpg") && e.contains("must be a PNG"), qPrintable(e));

        // Cut inside its image data: named, nothing read past the end.
        const std::string whole = dir.filePath("whole.png").toStdString();
        writeMaskPng(whole, rectangleMask(64, 64, 3, 3, 40, 50, 2));
        std::vector<uint8_t> bytes = readWholeFile(whole);
        bytes.resize(bytes.size() - 30);
        ClassMask out;
        e = errorOf([&] { decodeMaskInto(bytes, "cut.png", out); });
        QVERIFY2(e.startsWith("cut.png") && e.contains("cannot decode the mask"), qPrintable(e));

        const ClassMask unknown = rectangleMask(5, 4, 2, 1, 3, 2, 9);
        e = errorOf([&] { countMask(unknown, 6, "m.png"); });
        QVERIFY2(e.contains("m.png") && e.contains("pixel (2, 1) has class 9") &&
                     e.contains("0..5, and 255"),
                 qPrintable(e));
    }

    // Same seed, same scenes; every pixel of a shape's class lies in a box of that shape that
    // shapes-detect gives the same scene, each box holds pixels of its class, and outlines are
    // ignored.
    void shapesSegMasksAgreeWithTheBoxes() {
        const int size = 96;
        const ShapesSegSource a(30, size, 5, "a"), b(30, size, 5, "b");
        const ShapesDetectSource boxes(30, size, 5, "boxes");
        QCOMPARE(a.classNames(), (std::vector<std::string>{"background", "circle", "square",
                                                           "triangle", "star", "cross"}));
        SegmentedImage sa, sb;
        int64_t ignored = 0, shapePixels = 0;
        for (int64_t i = 0; i < a.size(); ++i) {
            a.load(i, sa);
            b.load(i, sb);
            QCOMPARE(sa.mask.classes, sb.mask.classes);
            QCOMPARE(sa.image.pixels, sb.image.pixels);
            QCOMPARE(sa.image.pixels, boxes.load(i).image.pixels);
            QVERIFY(a.maskCounts(i) == countMask(sa.mask, 6, "scene"));
            const auto& labels = boxes.labels(i).boxes;
            std::vector<int64_t> inBox(labels.size(), 0);
            for (int y = 0; y < size; ++y)
                for (int x = 0; x < size; ++x) {
                    const uint8_t c = sa.mask.classes[static_cast<std::size_t>(y * size + x)];
                    if (c == kMaskIgnore) {
                        ++ignored;
                        continue;
                    }
                    if (c == 0)
                        continue;
                    ++shapePixels;
                    bool inside = false;
                    for (std::size_t k = 0; k < labels.size(); ++k) {
                        const LabeledBox& bx = labels[k];
                        if (bx.category == c - 1 && x >= bx.x1 * size - 1 && x < bx.x2 * size + 1 &&
                            y >= bx.y1 * size - 1 && y < bx.y2 * size + 1) {
                            inside = true;
                            ++inBox[k];
                        }
                    }
                    QVERIFY2(inside, qPrintable(QString("scene %1, pixel (%2, %3) of class %4 "
                                                        "outside its shape's boxes")
                                                    .arg(i)
                                                    .arg(x)
                                                    .arg(y)
                                                    .arg(c)));
                }
            for (std::size_t k = 0; k < labels.size(); ++k)
                QVERIFY2(inBox[k] > 0, qPrintable(QString("scene %1: box %2 holds none of its "
                                                          "class")
                                                      .arg(i)
                                                      .arg(k)));
        }
        // Outlines: present, and a small share beside the shapes' insides.
        QVERIFY(ignored > 0 && ignored < shapePixels / 2);
    }

    void vocOpensAtEachRoot() {
        QTemporaryDir dir;
        const QString voc = writeVoc(dir.path());
        for (const QString& root : {dir.path(), dir.path() + "/VOCdevkit", voc}) {
            const auto train = openVocSegmentation(root.toStdString(), "train");
            QCOMPARE(train->size(), int64_t{2});
            QCOMPARE(train->classNames().size(), std::size_t{21});
            QCOMPARE(train->classNames()[15], std::string("person"));
            QCOMPARE(train->maskCounts(0).perClass[15], int64_t{20 * 10});
            QCOMPARE(train->maskCounts(0).perClass[0], int64_t{40 * 30 - 200});
            QCOMPARE(train->maskCounts(0).ignored, int64_t{0});
            QCOMPARE(train->maskCounts(1).perClass[0], int64_t{24 * 24 - 1});
            QCOMPARE(train->maskCounts(1).ignored, int64_t{1});
            QVERIFY(QString::fromStdString(train->warnings().at(0)).contains("line 2: blank"));
            QVERIFY(QString::fromStdString(train->description()).contains("train (2 images)"));
            QCOMPARE(openVocSegmentation(root.toStdString(), "val")->size(), int64_t{1});
        }
        // classes.txt beside the folders names other classes.
        writeText(voc + "/classes.txt", "sky\nground\n");
        QString e = errorOf([&] { openVocSegmentation(voc.toStdString(), "train"); });
        QVERIFY2(e.contains("a.png") && e.contains("has class 15, beyond the 2 classes"),
                 qPrintable(e));
    }

    void badVocInputIsNamed() {
        QTemporaryDir dir;
        const QString voc = writeVoc(dir.path());
        const std::string v = voc.toStdString();
        QString e =
            errorOf([&] { openVocSegmentation(dir.filePath("nothing").toStdString(), "train"); });
        QVERIFY2(e.contains("not a VOC folder"), qPrintable(e));
        e = errorOf([&] { openVocSegmentation(v, "test"); });
        QVERIFY2(e.contains("test.txt") && e.contains("missing"), qPrintable(e));

        writeText(voc + "/ImageSets/Segmentation/val.txt", "b\nghost\n");
        e = errorOf([&] { openVocSegmentation(v, "val"); });
        QVERIFY2(e.contains("val.txt, line 2") && e.contains("lists ghost") &&
                     e.contains("JPEGImages/ghost.jpg does not exist"),
                 qPrintable(e));

        // The image is there, its mask is not.
        writeRectangleImage(v + "/JPEGImages/c.jpg", 8, 8, 0, 0, 4, 4);
        writeText(voc + "/ImageSets/Segmentation/val.txt", "c\n");
        e = errorOf([&] { openVocSegmentation(v, "val"); });
        QVERIFY2(e.contains("SegmentationClass/c.png does not exist"), qPrintable(e));

        writeMaskPng(v + "/SegmentationClass/c.png", rectangleMask(8, 6, 0, 0, 4, 4, 1));
        e = errorOf([&] { openVocSegmentation(v, "val"); });
        QVERIFY2(e.contains("c.png") && e.contains("the mask is 8x6 pixels") &&
                     e.contains("c.jpg 8x8"),
                 qPrintable(e));

        writeSolidPng(v + "/SegmentationClass/c.png", 8, 8, 3, {128, 0, 0});
        e = errorOf([&] { openVocSegmentation(v, "val"); });
        QVERIFY2(e.contains("c.png") && e.contains("colour (RGB) mask"), qPrintable(e));

        writeMaskPng(v + "/SegmentationClass/c.png", rectangleMask(8, 8, 0, 0, 4, 4, 21));
        e = errorOf([&] { openVocSegmentation(v, "val"); });
        QVERIFY2(e.contains("c.png") && e.contains("has class 21, beyond the 21 classes"),
                 qPrintable(e));
    }

    void maskFoldersSplitBySeedOrByFolder() {
        QTemporaryDir dir;
        const QString root = writeMaskFolders(dir.path(), 10);
        const MaskFolderSplits s = openMaskFolders(root.toStdString(), 0.2, 7);
        QCOMPARE(s.train->size(), int64_t{8});
        QCOMPARE(s.validation->size(), int64_t{2});
        QCOMPARE(s.train->classNames(), (std::vector<std::string>{"background", "road", "car"}));
        std::set<std::string> seen;
        for (const auto* split : {s.train.get(), s.validation.get()})
            for (int64_t i = 0; i < split->size(); ++i)
                seen.insert(split->imageName(i));
        QCOMPARE(seen.size(), std::size_t{10});
        // The same seed holds out the same images; another seed others.
        const MaskFolderSplits again = openMaskFolders(root.toStdString(), 0.2, 7);
        QCOMPARE(again.validation->imageName(0), s.validation->imageName(0));
        bool differs = false;
        for (uint64_t seed = 8; seed < 14; ++seed)
            differs = differs ||
                      openMaskFolders(root.toStdString(), 0.2, seed).validation->imageName(0) !=
                          s.validation->imageName(0);
        QVERIFY(differs);

        SegmentedImage sample;
        s.train->load(0, sample);
        QCOMPARE(sample.image.width, 16);
        QCOMPARE(sample.mask.classes.size(), std::size_t{16 * 12});

        // Split folders: images/train + masks/train, images/val + masks/val.
        QTemporaryDir split;
        for (const char* part : {"train", "val"})
            writeMaskFolders(split.path() + "/tmp-" + part, 3);
        for (const char* part : {"train", "val"}) {
            QVERIFY(QDir().rename(split.path() + "/tmp-" + part + "/images",
                                  split.path() + "/images-" + part));
            QVERIFY(QDir().rename(split.path() + "/tmp-" + part + "/masks",
                                  split.path() + "/masks-" + part));
        }
        QDir().mkpath(split.path() + "/images");
        QDir().mkpath(split.path() + "/masks");
        for (const char* part : {"train", "val"}) {
            QVERIFY(
                QDir().rename(split.path() + "/images-" + part, split.path() + "/images/" + part));
            QVERIFY(
                QDir().rename(split.path() + "/masks-" + part, split.path() + "/masks/" + part));
        }
        QVERIFY(QFile::copy(root + "/classes.txt", split.path() + "/classes.txt"));
        const MaskFolderSplits byFolder = openMaskFolders(split.path().toStdString(), 0.2, 7);
        QCOMPARE(byFolder.train->size(), int64_t{3});
        QCOMPARE(byFolder.validation->size(), int64_t{3});
        QVERIFY(QString::fromStdString(byFolder.validation->imageName(0)).contains("images/val/"));
    }

    void badMaskFoldersAreNamed() {
        QTemporaryDir dir;
        const QString root = writeMaskFolders(dir.path(), 3);
        const std::string r = root.toStdString();
        QFile::remove(root + "/masks/1.png");
        QString e = errorOf([&] { openMaskFolders(r, 0.2, 1); });
        QVERIFY2(e.contains("masks/1.png") && e.contains("missing: the mask of 1.png"),
                 qPrintable(e));
        writeGreyMask(r + "/masks/1.png", rectangleMask(16, 12, 0, 0, 2, 2, 1));
        writeGreyMask(r + "/masks/orphan.png", rectangleMask(4, 4, 0, 0, 2, 2, 1));
        const MaskFolderSplits s = openMaskFolders(r, 0.2, 1);
        QVERIFY(QString::fromStdString(s.train->warnings().at(0)).contains("orphan.png: no image"));
        writeGreyMask(r + "/masks/2.png", rectangleMask(16, 12, 0, 0, 2, 2, 3));
        e = errorOf([&] { openMaskFolders(r, 0.2, 1); });
        QVERIFY2(e.contains("masks/2.png") && e.contains("has class 3, beyond the 3 classes"),
                 qPrintable(e));
        QFile::remove(root + "/classes.txt");
        e = errorOf([&] { openMaskFolders(r, 0.2, 1); });
        QVERIFY2(e.contains("classes.txt") && e.contains("missing: the class names"),
                 qPrintable(e));
    }

    // dataset-info's figures from the readers' counts: VOC's tiny train split has a 20 x 10
    // person in 40 x 30 and a 24 x 24 background with one ignored pixel.
    void statisticsCountPixelsAndImages() {
        QTemporaryDir dir;
        writeVoc(dir.path());
        const SegmentationSplitStats s =
            segmentationStats(*openVocSegmentation(dir.path().toStdString(), "train"));
        QCOMPARE(s.images, int64_t{2});
        QCOMPARE(s.pixels, int64_t{40 * 30 + 24 * 24 - 1});
        QCOMPARE(s.ignored, int64_t{1});
        QCOMPARE(s.pixelsPerClass[15], int64_t{200});
        QCOMPARE(s.pixelsPerClass[0], int64_t{40 * 30 - 200 + 24 * 24 - 1});
        QCOMPARE(s.imagesPerClass[15], int64_t{1});
        QCOMPARE(s.imagesPerClass[0], int64_t{2});
        QCOMPARE(s.imagesPerClass[1], int64_t{0});
        const nlohmann::json j = segmentationStatsToJson(s, vocClassNames());
        QCOMPARE(j.at("classes").at(15).at("name").get<std::string>(), std::string("person"));
        QCOMPARE(j.at("classes").at(15).at("pixel_share").get<double>(),
                 200.0 / (40 * 30 + 24 * 24 - 1));
    }

    // The grid: 32 px samples drawn 3x (96 px tiles), the mask's colours over the image where
    // a shape is, the image itself on the background, and the legend below.
    void gridLaysTheMasksOver() {
        QTemporaryDir dir;
        auto source = std::make_shared<ShapesSegSource>(4, 32, 9, "shapes-seg");
        const SegmentationDataset set(source, 32, false);
        const std::string path = dir.filePath("grid.png").toStdString();
        writeSegmentationGrid(set, path, 2, 2, false, 0);
        const RgbImage grid = decodeImage(readWholeFile(path), path);
        QCOMPARE(grid.width, 2 * (96 + 4) + 4);
        QVERIFY(grid.height > 2 * (96 + 4) + 4); // the legend's rows
        SegmentedImage first;
        source->load(0, first);
        RgbImage overlaid = first.image;
        overlayMask(overlaid, first.mask, 0.55f);
        int shapes = 0;
        for (int y = 0; y < 32; ++y)
            for (int x = 0; x < 32; ++x) {
                const std::size_t at = static_cast<std::size_t>(y * 32 + x) * 3;
                // Tile 0 starts at (4, 4); pixel (x, y) fills 3 x 3 there.
                const std::size_t drawn =
                    (static_cast<std::size_t>(4 + 3 * y + 1) * grid.width + 4 + 3 * x + 1) * 3;
                QCOMPARE(grid.pixels[drawn], overlaid.pixels[at]);
                const uint8_t c = first.mask.classes[static_cast<std::size_t>(y * 32 + x)];
                if (c != 0 && c != kMaskIgnore) {
                    ++shapes;
                    QVERIFY(overlaid.pixels[at] != first.image.pixels[at] ||
                            overlaid.pixels[at + 1] != first.image.pixels[at + 1] ||
                            overlaid.pixels[at + 2] != first.image.pixels[at + 2]);
                } else {
                    QCOMPARE(overlaid.pixels[at], first.image.pixels[at]);
                }
            }
        QVERIFY(shapes > 0);
    }

    // dataset-export: shapes-seg written in VOC's layout and as images/ + masks/ reads back
    // through the readers with the same pixels, masks and class names, split by split.
    void exportsReadBack_data() {
        QTest::addColumn<QString>("format");
        QTest::newRow("voc") << "voc";
        QTest::newRow("masks") << "masks";
    }
    void exportsReadBack() {
        QFETCH(QString, format);
        QTemporaryDir dir;
        DataConfig data;
        data.name = "shapes-seg";
        data.imageSize = 24;
        data.syntheticSamples = 30; // 3 validation images
        const std::string folder = dir.filePath("out").toStdString();
        const SegmentationExportResult r =
            exportSegmentation(data, folder, format.toStdString(), 4);
        QCOMPARE(r.images, int64_t{4 + 3});
        QVERIFY(r.bytes > 0);
        const RawSplits raw = openRawSplits(data, 0);
        std::shared_ptr<const SegmentationSource> back[2];
        if (format == "voc") {
            back[0] = openVocSegmentation(folder, "train");
            back[1] = openVocSegmentation(folder, "val");
        } else {
            const MaskFolderSplits s = openMaskFolders(folder, 0.1, 0);
            back[0] = s.train;
            back[1] = s.validation;
        }
        SegmentedImage original, read;
        for (int split = 0; split < 2; ++split) {
            const auto& source =
                dynamic_cast<const SegmentationDataset&>(split == 0 ? *raw.train : *raw.validation)
                    .source();
            QCOMPARE(back[split]->classNames(), source.classNames());
            QCOMPARE(back[split]->size(), int64_t{split == 0 ? 4 : 3});
            for (int64_t i = 0; i < back[split]->size(); ++i) {
                source.load(i, original);
                back[split]->load(i, read);
                QCOMPARE(read.image.pixels, original.image.pixels);
                QCOMPARE(read.mask.classes, original.mask.classes);
                QVERIFY(back[split]->maskCounts(i) == source.maskCounts(i));
            }
        }
        // Nothing is overwritten; a set without masks is not exported as one.
        QVERIFY_THROWS_EXCEPTION(Error, exportSegmentation(data, folder, format.toStdString()));
        data.name = "shapes";
        QString e = errorOf([&] {
            exportSegmentation(data, dir.filePath("again").toStdString(), format.toStdString());
        });
        QVERIFY2(e.contains("not a segmentation set"), qPrintable(e));
    }

    // A white square with its class in the mask, through many training draws: wherever the
    // mask says "square" the image is white and wherever it says "background" black (the
    // bilinear blend at the edge aside), and the mask holds no class it did not have.
    void transformsMoveTheMaskWithThePixels() {
        SegmentedImage in;
        const int w = 60, h = 40;
        in.mask = rectangleMask(w, h, 20, 10, 44, 30, 7, 3);
        in.image.width = w;
        in.image.height = h;
        for (uint8_t c : in.mask.classes)
            for (int ch = 0; ch < 3; ++ch)
                in.image.pixels.push_back(c == 7 ? 255 : 0);
        const int size = 32;
        int flips = 0, padded = 0;
        for (uint64_t seed = 0; seed < 64; ++seed) {
            const SegmentWarp warp = trainingWarp(w, h, size, {}, seed);
            flips += warp.scaleX < 0 ? 1 : 0;
            const SegmentedImage out = warpSegmented(in, warp, size);
            int square = 0, ignored = 0;
            for (int i = 0; i < size * size; ++i) {
                const uint8_t c = out.mask.classes[static_cast<std::size_t>(i)];
                const uint8_t v = out.image.pixels[static_cast<std::size_t>(i) * 3];
                QVERIFY2(c == 7 || c == 3 || c == kMaskIgnore, qPrintable(QString::number(c)));
                square += c == 7 ? 1 : 0;
                ignored += c == kMaskIgnore ? 1 : 0;
                // A pixel whose eight neighbours share its class is away from the edge: exactly
                // its colour, no blend of the other.
                const int x = i % size, y = i / size;
                bool interior = c != kMaskIgnore && x > 0 && y > 0 && x < size - 1 && y < size - 1;
                for (int d : {-1, 1, -size, size, -size - 1, -size + 1, size - 1, size + 1})
                    interior = interior && out.mask.classes[static_cast<std::size_t>(i + d)] == c;
                if (interior)
                    QVERIFY2(v == (c == 7 ? 255 : 0),
                             qPrintable(QString("seed %1, (%2, %3): class %4, value %5")
                                            .arg(seed)
                                            .arg(x)
                                            .arg(y)
                                            .arg(c)
                                            .arg(v)));
            }
            padded += ignored > 0 ? 1 : 0;
            // Where the square lands: its corners mapped by the inverse of the warp.
            const double ax = 1.0 / warp.scaleX, bx = -warp.offsetX / warp.scaleX;
            const double ay = 1.0 / warp.scaleY, by = -warp.offsetY / warp.scaleY;
            const double xa = std::clamp(ax * 20 + bx, 0.0, double(size)),
                         xb = std::clamp(ax * 44 + bx, 0.0, double(size));
            const double ya = std::clamp(ay * 10 + by, 0.0, double(size)),
                         yb = std::clamp(ay * 30 + by, 0.0, double(size));
            const double expected = std::fabs(xb - xa) * std::fabs(yb - ya);
            const double perimeter = 2 * (std::fabs(xb - xa) + std::fabs(yb - ya));
            QVERIFY2(std::fabs(square - expected) <= perimeter / 2 + 1,
                     qPrintable(QString("seed %1: %2 square pixels where %3 expected")
                                    .arg(seed)
                                    .arg(square)
                                    .arg(expected)));
        }
        QVERIFY(flips > 16 && flips < 48); // about half
        QVERIFY(padded > 0);               // some draws shrink the image below the crop

        // Validation resizes the whole image: nothing cropped, nothing ignored, 24x20 of 60x40
        // becomes 12.8 x 16 output pixels.
        const SegmentedImage val = warpSegmented(in, resizeWarp(w, h, size), size);
        const auto square =
            std::count(val.mask.classes.begin(), val.mask.classes.end(), uint8_t{7});
        QVERIFY2(std::abs(square - 13 * 16) <= 16, qPrintable(QString::number(square)));
        QCOMPARE(std::count(val.mask.classes.begin(), val.mask.classes.end(), kMaskIgnore), 0);
    }

    // The loader's batches through the normalisation every set gets: the image normalised, the
    // targets the mask that segmentedSample() gives for the same seed, as i32 with 255 kept.
    void loaderBatchesHoldTheMasks() {
        auto source = std::make_shared<ShapesSegSource>(12, 64, 3, "shapes-seg");
        const std::vector<float> mean{0.5f, 0.5f, 0.5f}, stdDev{0.25f, 0.25f, 0.25f};
        auto augmented = std::make_shared<SegmentationDataset>(source, 48, true);
        auto set = std::make_shared<NormalizeDataset>(augmented, mean, stdDev);
        QCOMPARE(set->targetsPerSample(), int64_t{48 * 48});
        QCOMPARE(set->numClasses(), 6);
        LoaderOptions o;
        o.batchSize = 4;
        o.shuffle = false;
        o.numWorkers = 2;
        o.seed = 21;
        DataLoader loader(set, o, *m_backend);
        loader.startEpoch(0);
        const auto batch = loader.next();
        QVERIFY(batch.has_value());
        QCOMPARE(batch->labels.shape(), (Shape{4, 48 * 48}));
        const uint64_t epoch = epochSeed(21, 0);
        for (int64_t i = 0; i < 4; ++i) {
            const SegmentedImage expected = augmented->segmentedSample(i, sampleSeed(epoch, i));
            const int32_t* targets = batch->labels.data<int32_t>() + i * 48 * 48;
            const float* pixels = batch->inputs.data<float>() + i * 3 * 48 * 48;
            for (int p = 0; p < 48 * 48; ++p) {
                QCOMPARE(targets[p], int32_t{expected.mask.classes[static_cast<std::size_t>(p)]});
                const float value = expected.image.pixels[static_cast<std::size_t>(p) * 3] / 255.0f;
                QVERIFY(std::fabs(pixels[p] - (value - 0.5f) / 0.25f) < 4.0f / 255 / 0.25f);
            }
        }
        // label(): the largest shape class of the scene.
        const auto& counts = source->maskCounts(0).perClass;
        const auto most = std::max_element(counts.begin() + 1, counts.end()) - counts.begin();
        QCOMPARE(set->label(0), static_cast<int32_t>(most));
    }

private:
    std::unique_ptr<Backend> m_backend;
};

QTEST_GUILESS_MAIN(TestSegmentData)
#include "tst_segmentdata.moc"

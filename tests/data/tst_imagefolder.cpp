// ImageFolder: PNG and JPEG decoding, grey to RGB, bilinear resize, torchvision's random resized
// crop and evaluation centre crop (checked against torchvision itself where it is installed),
// JPEGs decoded at the DCT scale their crop needs, the seeded split, ImageNet's statistics, and
// empty folders, empty classes and undecodable images.
#include "core/errors.h"
#include "data/datasets.h"
#include "data/imagefolder.h"
#include "imagefiles.h"
#include "io/safetensors.h"
#include "support/testdata.h"
#include "support/torchreference.h"

#include <QProcess>
#include <QtTest>

using namespace tb;
using namespace tb::test;

namespace {

// cat: a red 8x6 PNG and a grey 10x10 JPEG; dog: a grey 5x5 PNG and a blue 7x9 PNG.
void writeFolder(const QString& root) {
    QDir().mkpath(root + "/cat");
    QDir().mkpath(root + "/dog");
    const std::string r = root.toStdString();
    writeSolidPng(r + "/cat/a.png", 8, 6, 3, {255, 0, 0});
    writeGreyJpeg(r + "/cat/b.JPG", 10, 10);
    writeSolidPng(r + "/dog/c.png", 5, 5, 1, {128});
    writeSolidPng(r + "/dog/d.png", 7, 9, 3, {0, 0, 255});
    writeFile(r + "/dog/notes.txt", {'h', 'i'}); // ignored: not an image name
}

} // namespace

class TestImageFolder : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { qputenv("XDG_CACHE_HOME", m_cache.path().toUtf8()); }

    void scansAndDecodes() {
        QTemporaryDir dir;
        writeFolder(dir.path());
        const ImageFolderIndex index = scanImageFolder(dir.path().toStdString());
        QCOMPARE(index.classNames, (std::vector<std::string>{"cat", "dog"}));
        QCOMPARE(index.files.size(), std::size_t{4});
        ImageFolderDataset ds(std::make_shared<ImageFolderIndex>(index), 4, false, "t");
        QCOMPARE(ds.sampleShape(), (Shape{3, 4, 4}));
        std::vector<float> out(48);
        QCOMPARE(ds.get(0, out.data(), 0), 0); // red
        for (int i = 0; i < 16; ++i) {
            QCOMPARE(out[i], 1.0f);
            QCOMPARE(out[16 + i], 0.0f);
        }
        QCOMPARE(ds.get(2, out.data(), 0), 1); // grey PNG becomes R = G = B
        for (int i = 0; i < 16; ++i) {
            QCOMPARE(out[i], 128.0f / 255.0f);
            QCOMPARE(out[32 + i], 128.0f / 255.0f);
        }
        ds.get(1, out.data(), 0); // grey JPEG gradient: left dark, right bright, channels equal
        QVERIFY(out[0] < 0.3f && out[3] > 0.7f);
        QCOMPARE(out[0], out[16]);
    }

    void resizesBilinear() {
        RgbImage img{2, 1, {0, 0, 0, 255, 255, 255}};
        std::vector<float> out(3 * 4 * 4);
        resampleCrop(img, 0, 0, 2, 1, 4, false, out.data());
        // Columns map to source x = -0.25, 0.25, 0.75, 1.25 -> 0, 0.25, 0.75, 1.
        QCOMPARE(out[0], 0.0f);
        QCOMPARE(out[1], 0.25f);
        QCOMPARE(out[2], 0.75f);
        QCOMPARE(out[3], 1.0f);
        resampleCrop(img, 0, 0, 2, 1, 4, true, out.data());
        QCOMPARE(out[0], 1.0f);
    }

    void splitsAndAugments() {
        QTemporaryDir dir;
        writeFolder(dir.path());
        DataConfig config;
        config.name = "imagefolder";
        config.root = dir.path().toStdString();
        config.valFraction = 0.25;
        config.imageSize = 8;
        config.augment = true;
        const DatasetSplits s = openDatasets(config, 3);
        QCOMPARE(s.train->size(), int64_t{3});
        QCOMPARE(s.validation->size(), int64_t{1});
        QCOMPARE(s.train->classNames().at(1), std::string("dog"));
        std::vector<float> a(192), b(192);
        // The gradient JPEG shows the random crop; find it in train or validation.
        for (int64_t i = 0; i < s.train->size(); ++i) {
            s.train->get(i, a.data(), 5);
            s.train->get(i, b.data(), 5);
            QVERIFY(a == b);
        }
        s.validation->get(0, a.data(), 1);
        s.validation->get(0, b.data(), 99);
        QVERIFY(a == b); // no augmentation on validation
        const DatasetSplits again = openDatasets(config, 3);
        QCOMPARE(again.validation->label(0), s.validation->label(0));
    }

    void randomResizedCropVaries() {
        QTemporaryDir dir;
        QDir().mkpath(dir.path() + "/g");
        writeGreyJpeg((dir.path() + "/g/x.jpg").toStdString(), 64, 48);
        ImageFolderDataset ds(
            std::make_shared<ImageFolderIndex>(scanImageFolder(dir.path().toStdString())), 8, true,
            "t");
        std::vector<float> first(192), out(192);
        ds.get(0, first.data(), 0);
        int differ = 0;
        for (uint64_t seed = 1; seed < 10; ++seed) {
            ds.get(0, out.data(), seed);
            differ += out != first;
            for (float v : out)
                QVERIFY(v >= 0.0f && v <= 1.0f);
        }
        QVERIFY(differ >= 7);
    }

    void rejectsBadFolders_data() {
        QTest::addColumn<QString>("what");
        QTest::newRow("missing-root") << "missing-root";
        QTest::newRow("no-class-folders") << "no-classes";
        QTest::newRow("empty-class-folder") << "empty-class";
        QTest::newRow("one-class-folder") << "one-class";
    }
    void rejectsBadFolders() {
        QFETCH(QString, what);
        QTemporaryDir dir;
        DataConfig config;
        config.name = "imagefolder";
        config.root = dir.path().toStdString();
        std::string expected = config.root;
        if (what == "missing-root") {
            config.root = expected = (dir.path() + "/none").toStdString();
        } else if (what == "one-class") {
            QDir().mkpath(dir.path() + "/cat");
            writeSolidPng(config.root + "/cat/a.png", 8, 8, 3, {255, 0, 0});
        } else if (what == "empty-class") {
            writeFolder(dir.path());
            QDir().mkpath(dir.path() + "/emu");
            expected = (dir.path() + "/emu").toStdString();
        } else {
            writeFile(config.root + "/loose.png", {1, 2, 3});
        }
        try {
            openDatasets(config, 1);
            QFAIL("accepted a bad image folder");
        } catch (const DatasetError& e) {
            QCOMPARE(e.file(), expected);
        }
        config.root.clear();
        QVERIFY_THROWS_EXCEPTION(ConfigError, openDatasets(config, 1));
    }

    void rejectsUndecodableImages_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<qint64>("offset");
        QTest::newRow("text") << QByteArray("hello, not an image") << qint64(0);
        QTest::newRow("png-signature-then-garbage")
            << QByteArray("\x89PNG\r\n\x1a\ngarbage-garbage-garbage-garbage", 35) << qint64(-1);
        QTest::newRow("jpeg-marker-then-garbage")
            << QByteArray("\xff\xd8\xff\x01\x02\x03\x04\x05", 8) << qint64(-2);
    }
    void rejectsUndecodableImages() {
        QFETCH(QByteArray, bytes);
        QFETCH(qint64, offset);
        QTemporaryDir dir;
        writeFolder(dir.path());
        const std::string bad = (dir.path() + "/dog/e.png").toStdString();
        writeFile(bad, std::vector<uint8_t>(bytes.begin(), bytes.end()));
        DataConfig config;
        config.name = "imagefolder";
        config.root = dir.path().toStdString();
        config.valFraction = 0.0;
        // With normalisation the statistics pass decodes every image while opening.
        try {
            openDatasets(config, 1);
            QFAIL("accepted an undecodable image");
        } catch (const DatasetError& e) {
            qInfo("%s", e.what());
            QCOMPARE(e.file(), bad);
            if (offset != -2)
                QCOMPARE(qint64(e.offset()), offset);
        }
        // Without it, the error comes from get(), i.e. from the loader's worker.
        config.normalize = false;
        const DatasetSplits s = openDatasets(config, 1);
        std::vector<float> out(3 * 32 * 32);
        QVERIFY_THROWS_EXCEPTION(DatasetError, s.train->get(4, out.data(), 0));
    }

    void randomResizedCropStaysInItsBounds() {
        for (const auto& [w, h] : {std::pair{640, 480}, std::pair{50, 400}, std::pair{33, 33}})
            for (uint64_t seed = 0; seed < 200; ++seed) {
                const CropBox b = randomResizedCrop(w, h, seed);
                QVERIFY(b.x >= 0 && b.y >= 0 && b.width >= 1 && b.height >= 1);
                QVERIFY(b.x + b.width <= static_cast<float>(w) &&
                        b.y + b.height <= static_cast<float>(h));
                if (w == 640) { // large enough for rounding not to matter
                    const float ratio = b.width / b.height, area = b.width * b.height;
                    QVERIFY2(ratio > 0.74f && ratio < 1.34f, qPrintable(QString::number(ratio)));
                    QVERIFY(area >= 0.079f * 640 * 480);
                }
            }
        // No crop of an allowed ratio fits 1000 x 10: the centre, cut to 4:3.
        const CropBox wide = randomResizedCrop(1000, 10, 1);
        QCOMPARE(wide.width, 13.0f);
        QCOMPARE(wide.height, 10.0f);
        QCOMPARE(wide.x, 493.0f);
        QCOMPARE(wide.y, 0.0f);
    }

    // Resize(256) + CenterCrop(224) of a 500 x 375 photo: the shorter side becomes 256, the
    // longer int(256 x 500 / 375) = 341, and the crop starts at round((341 - 224) / 2): 58.5,
    // to even as Python rounds.
    void centerCropIsTorchvisionsResizeAndCrop() {
        const float s = 375.0f / 256.0f; // stored pixels per resized pixel
        const CropBox landscape = centerCrop(500, 375, 224);
        QCOMPARE(landscape.x, 58 * s);
        QCOMPARE(landscape.y, 16 * s);
        QCOMPARE(landscape.width, 224 * s);
        QCOMPARE(landscape.height, 224 * s);
        const CropBox portrait = centerCrop(375, 500, 224);
        QCOMPARE(portrait.x, 16 * s);
        QCOMPARE(portrait.y, 58 * s);
    }

    void dctScaleKeepsTheCropAtLeastTheOutputSize() {
        QCOMPARE(dctScaleFor(100, 100, 224), 1);
        QCOMPARE(dctScaleFor(447, 447, 224), 1);
        QCOMPARE(dctScaleFor(448, 448, 224), 2);
        QCOMPARE(dctScaleFor(1000, 800, 224), 2);
        QCOMPARE(dctScaleFor(4000, 3000, 224), 8);
        QCOMPARE(dctScaleFor(4000, 300, 32), 8);
    }

    // A JPEG is decoded at the scale the decoder is told, and through the dataset at the scale
    // its crop allows: within a few levels of decoding it whole and resampling the same crop.
    void jpegDecodesAtTheScaleItsCropNeeds() {
        QTemporaryDir dir;
        QDir().mkpath(dir.path() + "/g");
        const std::string path = (dir.path() + "/g/ramp.jpg").toStdString();
        writeRgbRamp(path, 640, 480);
        const std::vector<uint8_t> bytes = readWholeFile(path);
        RgbImage img;
        int toldWidth = 0, toldHeight = 0;
        decodeImageInto(bytes, path, img, [&](int w, int h) {
            toldWidth = w;
            toldHeight = h;
            return 4;
        });
        QCOMPARE(toldWidth, 640);
        QCOMPARE(toldHeight, 480);
        QCOMPARE(img.width, 160);
        QCOMPARE(img.height, 120);
        QCOMPARE(img.storedWidth, 640);

        ImageFolderDataset ds(
            std::make_shared<ImageFolderIndex>(scanImageFolder(dir.path().toStdString())), 32,
            false, "t");
        std::vector<float> scaled(3 * 32 * 32), whole(3 * 32 * 32);
        ds.get(0, scaled.data(), 0);
        const CropBox box = centerCrop(640, 480, 32);
        QCOMPARE(dctScaleFor(box.width, box.height, 32), 8);
        resampleCrop(decodeImage(bytes, path), box.x, box.y, box.width, box.height, 32, false,
                     whole.data());
        float worst = 0.0f;
        for (std::size_t i = 0; i < whole.size(); ++i)
            worst = std::max(worst, std::abs(scaled[i] - whole[i]));
        qInfo("1/8-scale decode vs whole decode, 32 px centre crop: worst %.4f", worst);
        QVERIFY(worst < 0.03f);
    }

    // The evaluation transform against torchvision's Resize + CenterCrop + ToTensor on a ramp
    // image, where only the geometry can differ: a crop one resized pixel off moves every value
    // by about 0.02. The JPEG goes through the 1/8-scale decode.
    void evalTransformMatchesTorchvision_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::addColumn<double>("tolerance");
        QTest::newRow("png-landscape") << "ramp.png" << 80 << 60 << 0.01;
        QTest::newRow("png-portrait") << "ramp.png" << 45 << 90 << 0.01;
        QTest::newRow("jpeg-1/8-scale") << "ramp.jpg" << 640 << 480 << 0.03;
    }
    void evalTransformMatchesTorchvision() {
        QFETCH(QString, file);
        QFETCH(int, width);
        QFETCH(int, height);
        QFETCH(double, tolerance);
        if (const QString why = test::torchUnavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        if (QProcess::execute("/usr/bin/python3", {"-c", "import torchvision"}) != 0)
            QSKIP("torchvision is not installed for /usr/bin/python3 (python3-torchvision)");
        QTemporaryDir dir;
        QDir().mkpath(dir.path() + "/g");
        const QString image = dir.path() + "/g/" + file;
        writeRgbRamp(image.toStdString(), width, height);
        ImageFolderDataset ds(
            std::make_shared<ImageFolderIndex>(scanImageFolder(dir.path().toStdString())), 32,
            false, "t");
        Tensor x = Tensor::host({3, 32, 32}, DType::F32);
        ds.get(0, x.data<float>(), 0);
        const QString ours = dir.path() + "/ours.safetensors";
        writeSafetensors(ours.toStdString(), {{"x", x}}, {});
        const QJsonObject r =
            test::runTorchScript("imagefolder_reference.py", {"eval", image, "32", ours});
        qInfo("%s %dx%d at 32 px against torchvision: worst %.4f, mean %.4f", qPrintable(file),
              width, height, r["max_abs_diff"].toDouble(), r["mean_abs_diff"].toDouble());
        QVERIFY(r["max_abs_diff"].toDouble() < tolerance);
    }

    // ImageNet's statistics: asked for, or (auto) for a run from pretrained weights on RGB
    // images; other samples keep their own, and asking ImageNet's of them is refused.
    void imageNetStatisticsForPretrainedWeights() {
        QTemporaryDir dir;
        writeFolder(dir.path());
        DataConfig config;
        config.name = "imagefolder";
        config.root = dir.path().toStdString();
        config.imageSize = 8;
        config.valFraction = 0.0;
        QCOMPARE(openDatasets(config, 1).normStats, std::string("dataset"));
        const DatasetSplits pretrained = openDatasets(config, 1, true);
        QCOMPARE(pretrained.normStats, std::string("imagenet"));
        QCOMPARE(pretrained.mean, kImageNetMean);
        QCOMPARE(pretrained.stdDev, kImageNetStd);
        std::vector<float> out(3 * 8 * 8);
        pretrained.train->get(0, out.data(), 0); // cat/a.png, all red
        QCOMPARE(out[0], (1.0f - 0.485f) / 0.229f);
        QCOMPARE(out[64], (0.0f - 0.456f) / 0.224f);
        config.normStats = "dataset";
        QCOMPARE(openDatasets(config, 1, true).normStats, std::string("dataset"));
        config.normStats = "imagenet";
        QCOMPARE(openDatasets(config, 1).normStats, std::string("imagenet"));

        DataConfig spirals;
        spirals.name = "spirals";
        QCOMPARE(openDatasets(spirals, 1, true).normStats, std::string("dataset"));
        spirals.normStats = "imagenet";
        try {
            openDatasets(spirals, 1);
            QFAIL("ImageNet's statistics for 2-feature samples");
        } catch (const ConfigError& e) {
            QCOMPARE(e.field(), std::string("data.norm_stats"));
            QVERIFY2(QString(e.what()).contains("RGB"), e.what());
        }
    }

private:
    QTemporaryDir m_cache;
};

QTEST_GUILESS_MAIN(TestImageFolder)
#include "tst_imagefolder.moc"

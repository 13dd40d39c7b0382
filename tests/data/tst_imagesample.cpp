// Image files as a model's samples (trainbench-cli predict): a greyscale file is taken pixel
// for pixel, a grey RGB file too, colour for a greyscale model is refused naming the file; other
// sizes go through ImageFolder's evaluation crop, which a model trained on an ImageFolder gets
// for every file; what the model cannot read is refused.
#include "core/errors.h"
#include "data/imagecodec.h"
#include "data/imagefolder.h"
#include "data/imagesample.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tb;

class TestImageSample : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    std::string file(const char* name) const { return m_dir.filePath(name).toStdString(); }

    static std::vector<uint8_t> gradient(int w, int h, int channels, bool colour) {
        std::vector<uint8_t> p(static_cast<std::size_t>(w * h * channels));
        for (int i = 0; i < w * h; ++i)
            for (int c = 0; c < channels; ++c)
                p[static_cast<std::size_t>(i * channels + c)] =
                    static_cast<uint8_t>((i * 7 + (colour ? 40 * c : 0)) % 256);
        return p;
    }

    static std::vector<float> expectedCrop(const std::string& path, int size) {
        const RgbImage image = decodeImage(readWholeFile(path), path);
        const CropBox crop = centerCrop(image.width, image.height, size);
        std::vector<float> out(static_cast<std::size_t>(3 * size * size));
        resampleCrop(image, crop.x, crop.y, crop.width, crop.height, size, false, out.data());
        return out;
    }

private slots:
    void greyFilesAreTakenAsTheyAre() {
        const std::vector<uint8_t> grey = gradient(28, 28, 1, false);
        writePng(file("grey.png"), 28, 28, 1, grey);
        const std::vector<float> s = imageFileSample(file("grey.png"), {1, 28, 28}, false);
        QCOMPARE(s.size(), std::size_t{28 * 28});
        for (std::size_t i = 0; i < s.size(); ++i)
            QCOMPARE(s[i], static_cast<float>(grey[i]) / 255.0f);
        // The same picture stored as RGB reads the same.
        writePng(file("grey-rgb.png"), 28, 28, 3, gradient(28, 28, 3, false));
        QCOMPARE(imageFileSample(file("grey-rgb.png"), {1, 28, 28}, false), s);
    }

    void colourForAGreyscaleModelIsRefused() {
        writePng(file("colour.png"), 28, 28, 3, gradient(28, 28, 3, true));
        try {
            imageFileSample(file("colour.png"), {1, 28, 28}, false);
            QFAIL("colour was read as grey");
        } catch (const DatasetError& e) {
            QVERIFY2(QString(e.what()).contains(m_dir.filePath("colour.png")) &&
                         QString(e.what()).contains("greyscale"),
                     e.what());
        }
    }

    void otherSizesGoThroughTheEvaluationCrop() {
        writePng(file("wide.png"), 64, 48, 3, gradient(64, 48, 3, true));
        QCOMPARE(imageFileSample(file("wide.png"), {3, 32, 32}, false),
                 expectedCrop(file("wide.png"), 32));
        // A model trained on an ImageFolder saw every image through the crop, its own size too.
        writePng(file("exact.png"), 32, 32, 3, gradient(32, 32, 3, true));
        QCOMPARE(imageFileSample(file("exact.png"), {3, 32, 32}, true),
                 expectedCrop(file("exact.png"), 32));
        QVERIFY(imageFileSample(file("exact.png"), {3, 32, 32}, false) !=
                expectedCrop(file("exact.png"), 32));
    }

    void whatTheModelCannotReadIsRefused() {
        writePng(file("any.png"), 20, 10, 1, gradient(20, 10, 1, false));
        try {
            imageFileSample(file("any.png"), {2}, false);
            QFAIL("a model of 2 features read an image");
        } catch (const ConfigError& e) {
            QCOMPARE(e.field(), std::string("model"));
        }
        try {
            imageFileSample(file("any.png"), {1, 28, 14}, false);
            QFAIL("an image was stretched to a non-square model");
        } catch (const DatasetError& e) {
            QVERIFY2(QString(e.what()).contains("20x10") && QString(e.what()).contains("14x28"),
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestImageSample)
#include "tst_imagesample.moc"

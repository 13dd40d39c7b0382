// ImageFolder: PNG and JPEG decoding, grey to RGB, bilinear resize, random resized crop, the
// seeded split, and empty folders, empty classes and undecodable images.
#include "core/errors.h"
#include "data/datasets.h"
#include "data/imagefolder.h"
#include "imagefiles.h"
#include "support/testdata.h"

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

private:
    QTemporaryDir m_cache;
};

QTEST_GUILESS_MAIN(TestImageFolder)
#include "tst_imagefolder.moc"

// Detection's transforms move boxes exactly with the pixels: a square drawn into an image is
// found again, after letterboxing, resizing, mosaic, scale/translate (with clipping and
// Ultralytics' box_candidates), flipping and the whole training transform, where its box says,
// within one pixel. HSV jitter equals Ultralytics' augment_hsv through OpenCV (python3-opencv)
// where that is installed.
#include "data/detectaugment.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace tb;

namespace {

struct Colour {
    uint8_t r, g, b;
};

// A width x height grey image with a filled square of `colour` over [x1, x2) x [y1, y2), and its
// box.
LabeledImage imageWithSquare(int width, int height, int x1, int y1, int x2, int y2, Colour colour,
                             int category = 0) {
    LabeledImage out;
    out.image.width = width;
    out.image.height = height;
    out.image.pixels.assign(static_cast<std::size_t>(width) * height * 3, 40);
    for (int y = y1; y < y2; ++y)
        for (int x = x1; x < x2; ++x) {
            uint8_t* p = &out.image.pixels[(static_cast<std::size_t>(y) * width + x) * 3];
            p[0] = colour.r;
            p[1] = colour.g;
            p[2] = colour.b;
        }
    out.boxes.push_back({category, static_cast<float>(x1), static_cast<float>(y1),
                         static_cast<float>(x2), static_cast<float>(y2)});
    return out;
}

// The extent of the pixels that are at least half-way from the background grey to `colour`
// (continuous coordinates: a pixel i counts as [i, i + 1)); an empty box when none are.
LabeledBox findColour(const RgbImage& image, Colour colour) {
    LabeledBox found{0, 1e9f, 1e9f, -1e9f, -1e9f};
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            const uint8_t* p = &image.pixels[(static_cast<std::size_t>(y) * image.width + x) * 3];
            const int want[3] = {colour.r, colour.g, colour.b};
            bool near = true;
            for (int c = 0; c < 3; ++c)
                near = near && std::abs(p[c] - want[c]) < std::abs(want[c] - 40) / 2 + 1;
            if (!near)
                continue;
            found.x1 = std::min(found.x1, static_cast<float>(x));
            found.y1 = std::min(found.y1, static_cast<float>(y));
            found.x2 = std::max(found.x2, static_cast<float>(x + 1));
            found.y2 = std::max(found.y2, static_cast<float>(y + 1));
        }
    return found;
}

bool within(const LabeledBox& a, const LabeledBox& b, float tolerance) {
    return std::abs(a.x1 - b.x1) <= tolerance && std::abs(a.y1 - b.y1) <= tolerance &&
           std::abs(a.x2 - b.x2) <= tolerance && std::abs(a.y2 - b.y2) <= tolerance;
}

QString describe(const LabeledBox& b) {
    return QStringLiteral("(%1, %2, %3, %4)").arg(b.x1).arg(b.y1).arg(b.x2).arg(b.y2);
}

#define QVERIFY_SAME_BOX(box, found)                                                               \
    QVERIFY2(within(box, found, 1.0f),                                                             \
             qPrintable("box " + describe(box) + " but the square is at " + describe(found)))

constexpr Colour kRed{230, 20, 20}, kGreen{20, 220, 40}, kBlue{30, 40, 240}, kYellow{240, 230, 10};

} // namespace

class TestDetectAugment : public QObject {
    Q_OBJECT
private slots:
    void letterboxKeepsTheSquare_data() {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::addColumn<int>("size");
        QTest::newRow("wide, shrunk") << 200 << 120 << 64;
        QTest::newRow("tall, shrunk") << 90 << 160 << 96;
        QTest::newRow("wide, grown") << 50 << 30 << 128;
        QTest::newRow("square, same") << 64 << 64 << 64;
    }
    void letterboxKeepsTheSquare() {
        QFETCH(int, width);
        QFETCH(int, height);
        QFETCH(int, size);
        const LabeledImage in =
            imageWithSquare(width, height, width / 4, height / 3, width / 2, height * 2 / 3, kRed);
        Affine map{};
        const LabeledImage out = letterbox(in, size, &map);
        const double scale = map[0], padX = map[2], padY = map[5];
        QCOMPARE(out.image.width, size);
        QCOMPARE(out.image.height, size);
        QCOMPARE(out.boxes.size(), std::size_t{1});
        QVERIFY_SAME_BOX(out.boxes[0], findColour(out.image, kRed));
        // Aspect kept, padding centred, and the box where the scale and padding put it.
        QVERIFY(padX == 0 || padY == 0);
        QCOMPARE(out.boxes[0].x1, static_cast<float>(in.boxes[0].x1 * scale + padX));
        // The padding is Ultralytics' grey.
        const uint8_t corner = out.image.pixels[0];
        QCOMPARE(corner, padX > 0 || padY > 0 ? kLetterboxGrey : uint8_t{40});
    }

    void resizeLongSideKeepsTheSquare() {
        const LabeledImage in = imageWithSquare(300, 180, 100, 40, 180, 120, kGreen);
        const LabeledImage out = resizeLongSide(in, 100);
        QCOMPARE(out.image.width, 100);
        QCOMPARE(out.image.height, 60);
        QVERIFY_SAME_BOX(out.boxes[0], findColour(out.image, kGreen));
    }

    // Each of four images' squares in its quadrant of the 2 size canvas, cut where the centre
    // lies inside a square.
    void mosaicPlacesFourImages_data() {
        QTest::addColumn<int>("xc");
        QTest::addColumn<int>("yc");
        QTest::newRow("centred") << 64 << 64;
        QTest::newRow("off centre") << 40 << 90;
        QTest::newRow("cutting squares") << 85 << 50;
    }
    void mosaicPlacesFourImages() {
        QFETCH(int, xc);
        QFETCH(int, yc);
        const Colour colours[4] = {kRed, kGreen, kBlue, kYellow};
        std::vector<LabeledImage> four = {
            imageWithSquare(64, 64, 10, 20, 50, 60, kRed, 0),
            imageWithSquare(80, 48, 5, 5, 30, 40, kGreen, 1), // resized to 64 x 39
            imageWithSquare(40, 64, 2, 30, 38, 50, kBlue, 2),
            imageWithSquare(64, 64, 0, 0, 20, 64, kYellow, 3),
        };
        const LabeledImage out = mosaic4(four, 64, xc, yc);
        QCOMPARE(out.image.width, 128);
        for (int k = 0; k < 4; ++k) {
            const LabeledBox found = findColour(out.image, colours[k]);
            const auto box = std::find_if(out.boxes.begin(), out.boxes.end(),
                                          [&](const LabeledBox& b) { return b.category == k; });
            if (found.x2 < found.x1) { // wholly cut away: its box must be gone too
                QVERIFY(box == out.boxes.end());
                continue;
            }
            QVERIFY2(box != out.boxes.end(),
                     qPrintable(QString("image %1's box is missing").arg(k)));
            QVERIFY_SAME_BOX(*box, found);
        }
    }

    // Ultralytics' affine without rotation: the square scaled about the centre and moved; a
    // square cut by the edge keeps the visible part, one with under 10% left is dropped.
    void scaleTranslateMovesAndClips_data() {
        QTest::addColumn<double>("gain");
        QTest::addColumn<double>("tx");
        QTest::addColumn<double>("ty");
        QTest::addColumn<bool>("kept");
        QTest::newRow("shrink") << 0.6 << 32.0 << 32.0 << true;
        QTest::newRow("grow") << 1.4 << 32.0 << 32.0 << true;
        QTest::newRow("shift right, cut") << 1.0 << 50.0 << 30.0 << true;
        QTest::newRow("almost gone") << 1.0 << 98.0 << 32.0 << false;
    }
    void scaleTranslateMovesAndClips() {
        QFETCH(double, gain);
        QFETCH(double, tx);
        QFETCH(double, ty);
        QFETCH(bool, kept);
        const LabeledImage in = imageWithSquare(64, 64, 30, 20, 50, 44, kBlue);
        const LabeledImage out = scaleTranslate(in, gain, tx, ty, 64, 64);
        QCOMPARE(out.boxes.size(), std::size_t{kept ? 1u : 0u});
        if (kept)
            QVERIFY_SAME_BOX(out.boxes[0], findColour(out.image, kBlue));
    }

    void flipMirrorsTheBox() {
        LabeledImage img = imageWithSquare(64, 48, 5, 10, 20, 30, kYellow);
        flipHorizontal(img);
        QCOMPARE(img.boxes[0].x1, 44.0f);
        QCOMPARE(img.boxes[0].x2, 59.0f);
        QVERIFY_SAME_BOX(img.boxes[0], findColour(img.image, kYellow));
    }

    // The whole training transform (HSV off so the colour stays findable), mosaic or not, for
    // many seeds: every kept box is its square, every visible square has its box.
    void trainingTransformKeepsBoxes_data() {
        QTest::addColumn<float>("mosaic");
        QTest::newRow("mosaic") << 1.0f;
        QTest::newRow("single") << 0.0f;
    }
    void trainingTransformKeepsBoxes() {
        QFETCH(float, mosaic);
        DetectAugmentOptions options;
        options.hsvH = options.hsvS = options.hsvV = 0;
        options.mosaic = mosaic;
        const Colour colours[4] = {kRed, kGreen, kBlue, kYellow};
        std::vector<LabeledImage> four = {
            imageWithSquare(96, 64, 30, 20, 60, 44, kRed, 0),
            imageWithSquare(64, 64, 10, 10, 40, 50, kGreen, 1),
            imageWithSquare(64, 96, 20, 40, 50, 70, kBlue, 2),
            imageWithSquare(64, 64, 20, 20, 44, 44, kYellow, 3),
        };
        int seen = 0;
        for (uint64_t seed = 0; seed < 24; ++seed) {
            const std::span<const LabeledImage> in =
                mosaic > 0 ? std::span<const LabeledImage>(four)
                           : std::span<const LabeledImage>(four.data(), 1);
            const LabeledImage out = augmentForTraining(in, 64, options, seed);
            QCOMPARE(out.image.width, 64);
            for (const LabeledBox& b : out.boxes) {
                const LabeledBox found = findColour(out.image, colours[b.category]);
                QVERIFY_SAME_BOX(b, found);
                ++seen;
            }
            for (int k = 0; k < (mosaic > 0 ? 4 : 1); ++k) {
                const LabeledBox found = findColour(out.image, colours[k]);
                const bool big = found.x2 - found.x1 > 4 && found.y2 - found.y1 > 4;
                const bool boxed =
                    std::any_of(out.boxes.begin(), out.boxes.end(),
                                [&](const LabeledBox& b) { return b.category == k; });
                // A visible square of more than a few pixels keeps its box unless most of it
                // was cut away (box_candidates' 10% rule): then it is small here.
                if (big && !boxed)
                    QVERIFY2(
                        (found.x2 - found.x1) * (found.y2 - found.y1) < 0.2f * 30 * 30,
                        qPrintable(QString("seed %1: square %2 without a box").arg(seed).arg(k)));
            }
        }
        QVERIFY(seen > (mosaic > 0 ? 24 : 12)); // boxes were really checked
    }

    // Gains of 1 change nothing but OpenCV's own HSV round-trip error (at most one level).
    void hsvAtUnitGainsIsIdentity() {
        RgbImage image;
        image.width = 64;
        image.height = 64;
        for (int i = 0; i < 64 * 64 * 3; ++i)
            image.pixels.push_back(static_cast<uint8_t>((i * 7919) % 256));
        RgbImage jittered = image;
        hsvJitter(jittered, 1.0, 1.0, 1.0);
        int worst = 0;
        for (std::size_t i = 0; i < image.pixels.size(); ++i)
            worst = std::max(worst, std::abs(image.pixels[i] - jittered.pixels[i]));
        QVERIFY2(worst <= 3, qPrintable(QString("worst %1 levels").arg(worst)));
    }

    // Ultralytics' augment_hsv, through OpenCV itself: the same pixels.
    void hsvMatchesOpenCv() {
        // Debian's interpreter, where python3-opencv installs.
        const QString python = QStringLiteral("/usr/bin/python3");
        if (!QFile::exists(python))
            QSKIP("no /usr/bin/python3 for OpenCV's reference");
        QProcess probe;
        probe.start(python, {"-c", "import cv2, numpy"});
        probe.waitForFinished(60000);
        if (probe.exitCode() != 0)
            QSKIP("python3-opencv is not installed (Debian: python3-opencv)");
        QTemporaryDir dir;
        RgbImage image;
        image.width = 256;
        image.height = 64;
        for (int i = 0; i < 256 * 64; ++i)
            for (int c = 0; c < 3; ++c)
                image.pixels.push_back(static_cast<uint8_t>((i * (31 + 17 * c) + c * 50) % 256));
        const std::string raw = (dir.path() + "/in.raw").toStdString();
        std::ofstream(raw, std::ios::binary)
            .write(reinterpret_cast<const char*>(image.pixels.data()),
                   static_cast<std::streamsize>(image.pixels.size()));
        const double gains[3] = {1.012, 0.55, 1.31};
        const QString script = QStringLiteral(R"(
import sys, numpy as np, cv2
im = np.fromfile(sys.argv[1], dtype=np.uint8).reshape(64, 256, 3)
r = np.array([%1, %2, %3])
hue, sat, val = cv2.split(cv2.cvtColor(im, cv2.COLOR_RGB2HSV))
x = np.arange(0, 256, dtype=r.dtype)
lut_hue = ((x * r[0]) %% 180).astype(np.uint8)
lut_sat = np.clip(x * r[1], 0, 255).astype(np.uint8)
lut_val = np.clip(x * r[2], 0, 255).astype(np.uint8)
im_hsv = cv2.merge((cv2.LUT(hue, lut_hue), cv2.LUT(sat, lut_sat), cv2.LUT(val, lut_val)))
cv2.cvtColor(im_hsv, cv2.COLOR_HSV2RGB).tofile(sys.argv[2])
)")
                                   .arg(gains[0], 0, 'g', 17)
                                   .arg(gains[1], 0, 'g', 17)
                                   .arg(gains[2], 0, 'g', 17)
                                   .replace("%%", "%");
        const QString out = dir.path() + "/out.raw";
        QProcess run;
        run.start(python, {"-c", script, QString::fromStdString(raw), out});
        QVERIFY(run.waitForFinished(120000));
        QVERIFY2(run.exitCode() == 0, run.readAllStandardError().constData());
        QFile reference(out);
        QVERIFY(reference.open(QIODevice::ReadOnly));
        const QByteArray expected = reference.readAll();
        QCOMPARE(expected.size(), static_cast<qsizetype>(image.pixels.size()));
        hsvJitter(image, gains[0], gains[1], gains[2]);
        int worst = 0, differing = 0;
        for (std::size_t i = 0; i < image.pixels.size(); ++i) {
            const int d = std::abs(image.pixels[i] -
                                   static_cast<uint8_t>(expected[static_cast<qsizetype>(i)]));
            worst = std::max(worst, d);
            differing += d > 0;
        }
        QVERIFY2(
            worst <= 1,
            qPrintable(QString("worst %1 levels, %2 values differ").arg(worst).arg(differing)));
    }
};

QTEST_APPLESS_MAIN(TestDetectAugment)
#include "tst_detectaugment.moc"

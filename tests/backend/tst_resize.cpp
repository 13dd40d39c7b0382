// Bilinear resizing computes PyTorch's F.interpolate(mode="bilinear", align_corners=False):
// forward and backward against PyTorch in float64 (tests/torch/resize_reference.py), each at
// most twice as far off as PyTorch's own float32, for upsampling by whole and fractional
// factors (FCN's 8x back to the image), downsampling, one output pixel and the same size; in
// the plain layout and the convolutions' kept layout, and in bf16 within its rounding.
#include "backend/cpu/cpubackend.h"
#include "backend/cpu/cpulayout.h"
#include "io/safetensors.h"
#include "support/layouttensors.h"
#include "support/testdata.h"
#include "support/torchreference.h"

#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb;

namespace {

// A PyTorch float32 error of zero (an exact result) still allows one float32 rounding.
constexpr double kRoundingFloor = 6e-8;
// bf16 keeps 8 bits: its values are within about 2^-8 of f32's.
constexpr double kBf16Error = 1e-2;

struct Case {
    QString name;
    Shape input;
    int64_t oh, ow;
    bool convLayout;
    DType dtype;
};

} // namespace

class TestResize : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (const QString why = test::torchUnavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        m_backend = std::make_unique<CpuBackend>(2);
    }

    void matchesPyTorchAgainstFloat64() {
        QTemporaryDir dir;
        // 16 channels fill the convolutions' channel blocks, so those cases also run in the
        // kept layout; FCN's 21 classes, and one or two channels, stay plain.
        const std::vector<std::tuple<const char*, Shape, int64_t, int64_t>> sizes{
            {"up2", Shape{2, 16, 5, 7}, 10, 14},
            {"up8", Shape{2, 21, 4, 4}, 32, 32},
            {"up-fraction", Shape{1, 16, 5, 7}, 11, 13},
            {"down", Shape{1, 16, 9, 8}, 4, 3},
            {"down2", Shape{1, 16, 8, 8}, 4, 4},
            {"one-pixel", Shape{1, 2, 4, 6}, 1, 1},
            {"same", Shape{1, 1, 5, 5}, 5, 5}};
        std::vector<Case> cases;
        QStringList files;
        for (const auto& [name, input, oh, ow] : sizes)
            for (const bool conv : {false, true})
                for (const DType dtype : {DType::F32, DType::BF16}) {
                    if (conv && (input[1] % 16 != 0 || oh * ow == 1))
                        continue;
                    Case c{QStringLiteral("%1-%2-%3")
                               .arg(name, conv ? "conv-layout" : "plain",
                                    dtype == DType::F32 ? "f32" : "bf16"),
                           input,
                           oh,
                           ow,
                           conv,
                           dtype};
                    files << dir.filePath(c.name + ".safetensors");
                    writeCase(c, files.last().toStdString());
                    cases.push_back(c);
                }
        const QJsonObject all = test::runTorchScript("resize_reference.py", files);
        for (const Case& c : cases) {
            const QJsonObject errors = all[c.name].toObject();
            QCOMPARE(errors.size(), 2);
            for (auto it = errors.begin(); it != errors.end(); ++it) {
                const double ours = it->toObject()["ours"].toDouble();
                const double torch = it->toObject()["torch32"].toDouble();
                qInfo("%-28s %-3s ours %.3g  PyTorch f32 %.3g", qPrintable(c.name),
                      qPrintable(it.key()), ours, torch);
                const double bound =
                    c.dtype == DType::F32 ? 2.0 * torch + kRoundingFloor : kBf16Error;
                QVERIFY2(
                    ours <= bound,
                    qPrintable(
                        QStringLiteral("%1 %2: %3 from float64").arg(c.name, it.key()).arg(ours)));
            }
        }
    }

private:
    // One forward and backward; the inputs as the backend saw them (bf16 rounding included)
    // and our outputs, to `path`.
    void writeCase(const Case& c, const std::string& path) {
        CpuBackend& b = *m_backend;
        const Shape out{c.input[0], c.input[1], c.oh, c.ow};
        const Tensor x = test::randomTensor(c.input, 21, -2.0f, 2.0f);
        const Tensor dy = test::randomTensor(out, 22);
        const auto place = [&](const Tensor& t) {
            return c.convLayout ? test::onBackendInConvLayout(b, t, c.dtype)
                                : test::onBackendPlain(b, t, c.dtype);
        };
        const Tensor xb = place(x), dyb = place(dy);
        Tensor y = b.empty(out, c.dtype), dx = b.empty(c.input, c.dtype);
        if (c.convLayout)
            QVERIFY(layoutOf(xb) != 0 && layoutOf(dyb) == layoutOf(xb)); // read through it
        b.resizeBilinearForward(xb, y);
        b.resizeBilinearBackward(dyb, dx);
        writeSafetensors(path,
                         {{"x", test::toHostF32(b, xb)},
                          {"dy", test::toHostF32(b, dyb)},
                          {"ours.y", test::toHostF32(b, y)},
                          {"ours.dx", test::toHostF32(b, dx)}},
                         {});
    }

    std::unique_ptr<CpuBackend> m_backend;
};

QTEST_GUILESS_MAIN(TestResize)
#include "tst_resize.moc"

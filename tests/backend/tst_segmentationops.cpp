// The ops a segmentation model adds compute what PyTorch computes, forward and backward,
// against PyTorch in float64 (tests/torch/segmentation_reference.py), each at most twice as far
// off as PyTorch's own float32:
// - bilinear resizing, F.interpolate(mode="bilinear", align_corners=False): upsampling by whole
//   and fractional factors (FCN's 8x back to the image), downsampling, one output pixel and the
//   same size; in the plain layout and the convolutions' kept layout, and in bf16 within its
//   rounding;
// - the per-pixel loss, F.cross_entropy(ignore_index=255): VOC's 21 classes with ignored
//   borders, under a loss scale and gradient accumulation, in both layouts; an ignored pixel's
//   gradient is exactly zero, and a label that is neither a class nor ignored is named.
#include "backend/cpu/cpubackend.h"
#include "backend/cpu/cpulayout.h"
#include "io/safetensors.h"
#include "support/layouttensors.h"
#include "support/testdata.h"
#include "support/torchreference.h"

#include "core/errors.h"

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

constexpr int32_t kIgnore = 255;

// Checks every case's outputs against the float64 reference: at most twice PyTorch's float32
// error (plus one rounding), or bf16's rounding.
void checkAgainstFloat64(const QJsonObject& all, const QStringList& names,
                         const QList<bool>& bf16) {
    for (qsizetype k = 0; k < names.size(); ++k) {
        const QJsonObject errors = all[names[k]].toObject();
        QCOMPARE(errors.size(), 2);
        for (auto it = errors.begin(); it != errors.end(); ++it) {
            const double ours = it->toObject()["ours"].toDouble();
            const double torch = it->toObject()["torch32"].toDouble();
            qInfo("%-28s %-7s ours %.3g  PyTorch f32 %.3g", qPrintable(names[k]),
                  qPrintable(it.key()), ours, torch);
            const double bound = bf16[k] ? kBf16Error : 2.0 * torch + kRoundingFloor;
            QVERIFY2(
                ours <= bound,
                qPrintable(
                    QStringLiteral("%1 %2: %3 from float64").arg(names[k], it.key()).arg(ours)));
        }
    }
}

} // namespace

class TestSegmentationOps : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (const QString why = test::torchUnavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        m_backend = std::make_unique<CpuBackend>(2);
    }

    void resizeMatchesPyTorchAgainstFloat64() {
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
        QStringList names;
        QList<bool> bf16;
        for (const Case& c : cases) {
            names << c.name;
            bf16 << (c.dtype == DType::BF16);
        }
        checkAgainstFloat64(test::runTorchScript("segmentation_reference.py", files), names, bf16);
    }

    void pixelLossMatchesPyTorchAgainstFloat64() {
        QTemporaryDir dir;
        QStringList files, names;
        for (const bool conv : {false, true}) {
            const QString name = conv ? "loss-conv-layout" : "loss-plain";
            files << dir.filePath(name + ".safetensors");
            names << name;
            writeLossCase(conv, files.last().toStdString());
        }
        checkAgainstFloat64(test::runTorchScript("segmentation_reference.py", files), names,
                            {false, false});
    }

    void pixelLossNamesABadLabel() {
        CpuBackend& b = *m_backend;
        Tensor logits = test::randomTensor({1, 3, 2, 4}, 5);
        Tensor labels = Tensor::host({1, 2, 4}, DType::I32);
        for (int64_t i = 0; i < labels.numel(); ++i)
            labels.data<int32_t>()[i] = i == 6 ? 7 : (i == 2 ? kIgnore : 1);
        Tensor sums = b.empty({2}, DType::F32);
        b.fill(sums, 0.0f);
        try {
            b.pixelCrossEntropy(logits, labels, kIgnore, 7, sums, nullptr, nullptr, 1.0f);
            QFAIL("a label of 7 with 3 classes was accepted");
        } catch (const Error& e) {
            QCOMPARE(QString(e.what()), "label 7 at image 0, pixel (1, 2) is outside 0..2 and "
                                        "not the ignored 255");
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

    // VOC-like: 21 classes at 12 x 10, a fifth of the pixels on ignored borders; the loss under
    // a loss scale of 1024 and accumulation over 2 batches, as the trainer calls it.
    void writeLossCase(bool convLayout, const std::string& path) {
        CpuBackend& b = *m_backend;
        const Shape shape{2, 21, 12, 10};
        const Tensor logits = test::randomTensor(shape, 31, -4.0f, 4.0f);
        Tensor labels = Tensor::host({2, 12, 10}, DType::I32);
        int64_t counted = 0;
        for (int64_t i = 0; i < labels.numel(); ++i) {
            const bool border = i % 5 == 0;
            labels.data<int32_t>()[i] = border ? kIgnore : static_cast<int32_t>((i * 7) % 21);
            counted += border ? 0 : 1;
        }
        const Tensor lb = convLayout ? test::onBackendInConvLayout(b, logits, DType::F32)
                                     : test::onBackendPlain(b, logits, DType::F32);
        if (convLayout)
            QVERIFY(layoutOf(lb) != 0);
        Tensor sums = b.empty({2}, DType::F32), scale = b.empty({1}, DType::F32);
        b.fill(sums, 0.0f);
        b.fill(scale, 1024.0f);
        Tensor dlogits = b.empty(shape, DType::F32);
        b.pixelCrossEntropy(lb, labels, kIgnore, counted, sums, &dlogits, &scale, 2.0f);
        // PyTorch's gradient of loss * 1024; ours is divided by the 2 accumulated batches too.
        Tensor grad = test::toHostF32(b, dlogits);
        for (int64_t i = 0; i < grad.numel(); ++i) {
            const int64_t pixel = i / (12 * 10 * 21) * 120 + i % 120;
            if (labels.data<int32_t>()[pixel] == kIgnore)
                QCOMPARE(grad.data<float>()[i], 0.0f);
            grad.data<float>()[i] *= 2.0f;
        }
        Tensor loss = Tensor::host({1}, DType::F32), gradScale = Tensor::host({1}, DType::F32);
        loss.data<float>()[0] = test::toHostF32(b, sums).data<float>()[0];
        gradScale.data<float>()[0] = 1024.0f;
        writeSafetensors(path,
                         {{"logits", test::toHostF32(b, lb)},
                          {"labels", labels},
                          {"grad_scale", gradScale},
                          {"ours.loss", loss},
                          {"ours.dlogits", grad}},
                         {{"ignore_index", std::to_string(kIgnore)}});
    }

    std::unique_ptr<CpuBackend> m_backend;
};

QTEST_GUILESS_MAIN(TestSegmentationOps)
#include "tst_segmentationops.moc"

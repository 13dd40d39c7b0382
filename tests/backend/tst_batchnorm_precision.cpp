// Batch norm's sums are as exact as PyTorch's: against a float64 reference on the same input,
// every output (y, dx, dgamma, dbeta, the running statistics) of the CPU backend is at most twice
// as far off as PyTorch's float32, in each layout (plain, the convolutions' kept layout,
// channels-last) and precision, with and without the fused ReLU. The input has a mean far from
// zero and a gradient that nearly cancels, as deep in a trained network, where sums in float
// lose the digits that matter. tests/torch/batchnorm_reference.py computes both references.
#include "backend/cpu/cpubackend.h"
#include "backend/cpu/cpulayout.h"
#include "io/safetensors.h"
#include "support/layouttensors.h"
#include "support/testdata.h"
#include "support/torchreference.h"

#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <stdexcept>

using namespace tb;

namespace {

constexpr float kEps = 1e-5f, kMomentum = 0.1f;

// A PyTorch float32 error of zero (an exact result) still allows one float32 rounding.
constexpr double kRoundingFloor = 6e-8;

enum class Layout { Plain, ConvLayout, ChannelsLast };

struct Case {
    QString name;
    Layout layout;
    DType dtype;
    bool relu;
    Shape shape;
};

QString layoutText(Layout l) {
    return l == Layout::Plain ? "plain" : l == Layout::ConvLayout ? "conv-layout" : "channels-last";
}

} // namespace

class TestBatchNormPrecision : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (const QString why = test::torchUnavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        m_backend = std::make_unique<CpuBackend>(2);
        m_channelsLast = std::make_unique<CpuBackend>(2);
        m_channelsLast->setMemoryFormat(MemoryFormat::ChannelsLast);
    }

    void matchesPyTorchAgainstFloat64() {
        QTemporaryDir dir;
        std::vector<Case> cases;
        QStringList files;
        // A shallow layer (many pixels per channel and plane) and a deep one (few pixels, more
        // channels).
        for (const Shape& shape : {Shape{8, 16, 64, 64}, Shape{128, 64, 8, 8}})
            for (Layout layout : {Layout::Plain, Layout::ConvLayout, Layout::ChannelsLast})
                for (DType dtype : {DType::F32, DType::BF16})
                    for (bool relu : {false, true}) {
                        Case c{QStringLiteral("%1-%2-%3%4")
                                   .arg(QString::fromStdString(shape.toString()),
                                        layoutText(layout),
                                        QString::fromUtf8(dtypeName(dtype).data(),
                                                          qsizetype(dtypeName(dtype).size())),
                                        relu ? QStringLiteral("-relu") : QString()),
                               layout, dtype, relu, shape};
                        files << dir.filePath(c.name + ".safetensors");
                        writeCase(c, files.last().toStdString());
                        cases.push_back(c);
                    }
        const QJsonObject all = test::runTorchScript("batchnorm_reference.py", files);
        for (const Case& c : cases) {
            const QJsonObject errors = all[c.name].toObject();
            QVERIFY2(!errors.isEmpty(), qPrintable(c.name));
            for (auto it = errors.begin(); it != errors.end(); ++it) {
                const double ours = it->toObject()["ours"].toDouble();
                const double torch = it->toObject()["torch32"].toDouble();
                qInfo("%-32s %-13s ours %.3g  PyTorch f32 %.3g", qPrintable(c.name),
                      qPrintable(it.key()), ours, torch);
                QVERIFY2(ours <= 2.0 * torch + kRoundingFloor,
                         qPrintable(QStringLiteral("%1 %2: %3 from float64, PyTorch float32 %4")
                                        .arg(c.name, it.key())
                                        .arg(ours)
                                        .arg(torch)));
            }
        }
    }

private:
    // Runs one forward and backward and writes the inputs, as the backend saw them (bf16
    // rounding included), and the outputs to `path`.
    void writeCase(const Case& c, const std::string& path) {
        CpuBackend& b = c.layout == Layout::ChannelsLast ? *m_channelsLast : *m_backend;
        const Shape ch{c.shape[1]};
        // Activations around 3 with spread 0.6: the mean dominates each value. The gradient's
        // mean (0.002) is a fifth of its spread, so sum(dy) cancels to a few digits.
        const Tensor x = test::randomTensor(c.shape, 11, 2.0f, 4.0f);
        Tensor dy = test::randomTensor(c.shape, 12, -0.008f, 0.012f);
        const Tensor gamma = test::randomTensor(ch, 13, 0.5f, 1.5f);
        const Tensor beta = test::randomTensor(ch, 14, -0.5f, 0.5f);
        const auto place = [&](const Tensor& t) {
            return c.layout == Layout::Plain ? test::onBackendPlain(b, t, c.dtype)
                                             : test::onBackendInConvLayout(b, t, c.dtype);
        };
        Tensor xb = place(x), dyb = place(dy);
        if (c.layout != Layout::Plain)
            QVERIFY(layoutOf(xb) != 0 && layoutOf(dyb) == layoutOf(xb));
        if (c.layout == Layout::ChannelsLast)
            QCOMPARE(layoutOf(xb), kChannelsLast);
        Tensor y = b.empty(c.shape, c.dtype), dx = b.empty(c.shape, c.dtype);
        Tensor rm = b.empty(ch, DType::F32), rv = b.empty(ch, DType::F32);
        Tensor mean = b.empty(ch, DType::F32), invStd = b.empty(ch, DType::F32);
        Tensor dgamma = b.empty(ch, DType::F32), dbeta = b.empty(ch, DType::F32);
        b.fill(rm, 0.0f);
        b.fill(rv, 1.0f);
        b.fill(dgamma, 0.0f);
        b.fill(dbeta, 0.0f);
        if (c.relu) {
            b.batchNormReluForwardTrain(xb, gamma, beta, rm, rv, kMomentum, kEps, y, mean, invStd);
            b.batchNormReluBackward(xb, y, dyb, gamma, mean, invStd, kEps, dx, dgamma, dbeta);
        } else {
            b.batchNormForwardTrain(xb, gamma, beta, rm, rv, kMomentum, kEps, y, mean, invStd);
            b.batchNormBackward(xb, dyb, gamma, mean, invStd, kEps, dx, dgamma, dbeta);
        }
        if (c.layout != Layout::Plain)
            QCOMPARE(layoutOf(dx), layoutOf(xb)); // the kernels for that layout ran
        // bf16 stores y and dx rounded to 8 bits, far above either sum's error: compare the
        // f32 outputs, which the sums decide.
        const QString compare = c.dtype == DType::F32
                                    ? "y,dx,dgamma,dbeta,running_mean,running_var"
                                    : "dgamma,dbeta,running_mean,running_var";
        std::vector<SafetensorsEntry> entries{
            {"x", test::toHostF32(b, xb)},          {"dy", test::toHostF32(b, dyb)},
            {"gamma", gamma},                       {"beta", beta},
            {"ours.y", test::toHostF32(b, y)},      {"ours.dx", test::toHostF32(b, dx)},
            {"ours.dgamma", test::toHostF32(b, dgamma)},
            {"ours.dbeta", test::toHostF32(b, dbeta)},
            {"ours.running_mean", test::toHostF32(b, rm)},
            {"ours.running_var", test::toHostF32(b, rv)}};
        writeSafetensors(path, entries,
                         {{"eps", std::to_string(kEps)},
                          {"momentum", std::to_string(kMomentum)},
                          {"relu", c.relu ? "1" : "0"},
                          {"compare", compare.toStdString()}});
    }

    std::unique_ptr<CpuBackend> m_backend, m_channelsLast;
};

QTEST_GUILESS_MAIN(TestBatchNormPrecision)
#include "tst_batchnorm_precision.moc"

// conv_algorithm=auto computes 3x3 stride-1 f32 convolutions by Winograd's F(4x4, 3x3) where
// oneDNN implements it for this CPU (AVX-512), and the direct algorithm elsewhere. Both are
// checked against the convolution's definition summed in double, forward and backward, and
// the shapes Winograd is (and is not) used for are checked on the backend's own counts.
#include "backend/cpu/cpubackend.h"
#include "backend/cpu/cpuconv.h"
#include "backend/cpu/cpuisa.h"
#include "support/layouttensors.h"
#include "support/testdata.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace tb;

namespace {

struct Gradients {
    std::vector<double> y, dx, dw;
};

// The definition, in double: y = conv(x, w) (pad 1, stride 1, 3x3), dx and dw for dy.
Gradients referenceConv(const ConvDesc& d, const std::vector<float>& x, const std::vector<float>& w,
                        const std::vector<float>& dy) {
    const int64_t n = d.n, c = d.c, k = d.k, h = d.h, wd = d.w;
    Gradients g{std::vector<double>(static_cast<std::size_t>(n * k * h * wd)),
                std::vector<double>(x.size()), std::vector<double>(w.size())};
    const auto xi = [&](int64_t b, int64_t ch, int64_t i, int64_t j) {
        return static_cast<std::size_t>(((b * c + ch) * h + i) * wd + j);
    };
    const auto yi = [&](int64_t b, int64_t o, int64_t i, int64_t j) {
        return static_cast<std::size_t>(((b * k + o) * h + i) * wd + j);
    };
    const auto wi = [&](int64_t o, int64_t ch, int64_t r, int64_t s) {
        return static_cast<std::size_t>(((o * c + ch) * 3 + r) * 3 + s);
    };
    for (int64_t b = 0; b < n; ++b)
        for (int64_t o = 0; o < k; ++o)
            for (int64_t ch = 0; ch < c; ++ch)
                for (int64_t r = 0; r < 3; ++r)
                    for (int64_t s = 0; s < 3; ++s)
                        for (int64_t i = 0; i < h; ++i) {
                            const int64_t ii = i + r - 1;
                            if (ii < 0 || ii >= h)
                                continue;
                            for (int64_t j = 0; j < wd; ++j) {
                                const int64_t jj = j + s - 1;
                                if (jj < 0 || jj >= wd)
                                    continue;
                                const double xv = x[xi(b, ch, ii, jj)], wv = w[wi(o, ch, r, s)],
                                             g0 = dy[yi(b, o, i, j)];
                                g.y[yi(b, o, i, j)] += xv * wv;
                                g.dx[xi(b, ch, ii, jj)] += g0 * wv;
                                g.dw[wi(o, ch, r, s)] += g0 * xv;
                            }
                        }
    return g;
}

// The largest difference relative to the largest magnitude of the reference.
double relativeError(const Tensor& got, const std::vector<double>& ref) {
    const float* p = got.data<float>();
    double err = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        err = std::max(err, std::abs(p[i] - ref[i]));
        scale = std::max(scale, std::abs(ref[i]));
    }
    return err / scale;
}

std::vector<float> values(const Tensor& t) {
    const float* p = t.data<float>();
    return {p, p + t.numel()};
}

bool oneDnnHasWinograd() {
    // oneDNN 2.x implements f32 Winograd convolutions for AVX-512 (avx512_core and above).
    return cpuLowPrecisionSupport().isa.rfind("avx512_core", 0) == 0;
}

} // namespace

class TestCpuWinograd : public QObject {
    Q_OBJECT
private slots:
    void matchesTheDefinition_data() {
        QTest::addColumn<bool>("winograd");
        QTest::newRow("auto") << true;
        QTest::newRow("direct") << false;
    }
    // Forward, data and weight gradients against double sums: the direct algorithm within
    // float32's rounding of a 576-term sum, Winograd within its transforms' few more roundings.
    void matchesTheDefinition() {
        QFETCH(bool, winograd);
        CpuBackend backend(2);
        backend.setConvAlgorithm(winograd ? ConvAlgorithm::Auto : ConvAlgorithm::Direct);
        const ConvDesc d{2, 64, 12, 12, 64, 3, 3, 1, 1};
        const Shape xs{d.n, d.c, d.h, d.w}, ws{d.k, d.c, 3, 3}, ys{d.n, d.k, d.h, d.w};
        const Tensor x = test::randomTensor(xs, 1, 0.0f, 1.0f),
                     w = test::randomTensor(ws, 2, -0.06f, 0.06f), dy = test::randomTensor(ys, 3);
        Tensor y = backend.empty(ys, DType::F32), dx = backend.empty(xs, DType::F32),
               dw = backend.empty(ws, DType::F32);
        backend.fill(dw, 0.0f);
        backend.convForward(d, x, w, nullptr, y);
        backend.convBackward(d, x, w, dy, &dx, dw, nullptr);
        const Tensor yh = test::toHostF32(backend, y), dxh = test::toHostF32(backend, dx),
                     dwh = test::toHostF32(backend, dw);
        const Gradients ref = referenceConv(d, values(x), values(w), values(dy));
        const bool used = backend.convolutionAlgorithms().winograd == 1;
        QCOMPARE(used, winograd && oneDnnHasWinograd());
        // Measured on AVX-512: direct 3-5e-7, Winograd 5e-7 to 1.2e-6 of the largest value.
        const double bound = used ? 5e-6 : 1e-6;
        const double ey = relativeError(yh, ref.y), edx = relativeError(dxh, ref.dx),
                     edw = relativeError(dwh, ref.dw);
        qInfo("%s: relative errors y %.2e, dx %.2e, dw %.2e", used ? "winograd" : "direct", ey, edx,
              edw);
        QVERIFY2(ey < bound, qPrintable(QString::number(ey)));
        QVERIFY2(edx < bound, qPrintable(QString::number(edx)));
        QVERIFY2(edw < bound, qPrintable(QString::number(edw)));
    }

    // Only dense 3x3 stride-1 f32 convolutions with enough channels, in oneDNN's blocked layout,
    // are tried.
    void triedOnlyWhereItFits_data() {
        QTest::addColumn<int>("channels");
        QTest::addColumn<int>("stride");
        QTest::addColumn<int>("dilation");
        QTest::addColumn<int>("kernel");
        QTest::addColumn<bool>("bf16");
        QTest::addColumn<bool>("channelsLast");
        QTest::addColumn<bool>("fits");
        QTest::newRow("3x3, 32 channels") << 32 << 1 << 1 << 3 << false << false << true;
        QTest::newRow("48 channels") << 48 << 1 << 1 << 3 << false << false << true;
        QTest::newRow("40 channels (not whole blocks of 16)")
            << 40 << 1 << 1 << 3 << false << false << false;
        QTest::newRow("16 channels") << 16 << 1 << 1 << 3 << false << false << false;
        QTest::newRow("stride 2") << 32 << 2 << 1 << 3 << false << false << false;
        QTest::newRow("dilation 2") << 32 << 1 << 2 << 3 << false << false << false;
        QTest::newRow("1x1") << 32 << 1 << 1 << 1 << false << false << false;
        QTest::newRow("bf16") << 32 << 1 << 1 << 3 << true << false << false;
        QTest::newRow("channels_last") << 32 << 1 << 1 << 3 << false << true << true;
    }
    void triedOnlyWhereItFits() {
        QFETCH(int, channels);
        QFETCH(int, stride);
        QFETCH(int, dilation);
        QFETCH(int, kernel);
        QFETCH(bool, bf16);
        QFETCH(bool, channelsLast);
        QFETCH(bool, fits);
        ConvDesc d{2, channels, 8, 8, channels, kernel, kernel, stride, dilation * (kernel / 2)};
        d.dilation = dilation;
        const DType act = bf16 ? DType::BF16 : DType::F32;
        QCOMPARE(CpuConvCache::winogradFits(d, act), fits);
        CpuBackend backend(2);
        if (channelsLast) // oneDNN's Winograd reads nChw16c only: direct in NHWC
            backend.setMemoryFormat(MemoryFormat::ChannelsLast);
        // bf16 that the CPU only emulates is computed in f32, where Winograd fits.
        const bool asF32 = !bf16 || !cpuLowPrecisionSupport().bf16Native;
        const bool expected = CpuConvCache::winogradFits(d, DType::F32) && asF32 && !channelsLast &&
                              oneDnnHasWinograd();
        Tensor x = backend.empty({d.n, d.c, d.h, d.w}, act);
        const Tensor w = test::randomTensor({d.k, d.c, d.r, d.s}, 4);
        backend.fill(x, 0.5f);
        Tensor y = backend.empty({d.n, d.k, d.outH(), d.outW()}, act);
        backend.convForward(d, x, w, nullptr, y);
        QCOMPARE(backend.convolutionAlgorithms().shapes, 1);
        QCOMPARE(backend.convolutionAlgorithms().winograd, expected ? 1 : 0);
    }
};

QTEST_GUILESS_MAIN(TestCpuWinograd)
#include "tst_cpu_winograd.moc"

// Finite-difference gradient checks for every layer type and for the fused loss.
#include "support/gradcheck.h"

#include "backend/kernels/random_math.h"
#include "core/errors.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

using namespace tb;

class TestGradCheck : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { m_backend = createCpuBackend(2); }

    void layer_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("shapes"); // ';'-separated input shapes
        QTest::newRow("linear") << R"({"type":"linear","out_features":5})"
                                << "3x7";
        QTest::newRow("linear-no-bias") << R"({"type":"linear","out_features":4,"bias":false})"
                                        << "2x2x3";
        QTest::newRow("conv2d") << R"({"type":"conv2d","out_channels":3,"kernel":3,"padding":1})"
                                << "2x2x5x5";
        QTest::newRow("conv2d-stride2-nobias")
            << R"({"type":"conv2d","out_channels":4,"kernel":3,"stride":2,"bias":false})"
            << "2x3x7x7";
        QTest::newRow("conv2d-1x1") << R"({"type":"conv2d","out_channels":2,"kernel":1})"
                                    << "1x3x4x4";
        QTest::newRow("conv2d-depthwise")
            << R"({"type":"conv2d","out_channels":4,"kernel":3,"padding":1,"groups":4})"
            << "2x4x5x5";
        QTest::newRow("conv2d-groups2-stride2-nobias")
            << R"({"type":"conv2d","out_channels":6,"kernel":3,"stride":2,"groups":2,"bias":false})"
            << "2x4x7x7";
        // Atrous: taps 2 apart (a 5 x 5 span), and DeepLab's stride 1 with padding = dilation.
        QTest::newRow("conv2d-dilated2-stride2")
            << R"({"type":"conv2d","out_channels":3,"kernel":3,"stride":2,"dilation":2})"
            << "2x2x9x9";
        QTest::newRow("conv2d-dilated3-same")
            << R"({"type":"conv2d","out_channels":2,"kernel":3,"padding":3,"dilation":3,"bias":false})"
            << "1x3x7x7";
        QTest::newRow("conv2d-depthwise-multiplier2")
            << R"({"type":"conv2d","out_channels":6,"kernel":1,"groups":3})"
            << "1x3x4x4";
        QTest::newRow("batchnorm2d") << R"({"type":"batchnorm2d"})"
                                     << "4x3x3x3";
        QTest::newRow("relu") << R"({"type":"relu"})"
                              << "2x10";
        QTest::newRow("leakyrelu") << R"({"type":"leakyrelu","negative_slope":0.2})"
                                   << "2x10";
        QTest::newRow("relu6") << R"({"type":"relu6"})"
                               << "2x10";
        QTest::newRow("gelu") << R"({"type":"gelu"})"
                              << "2x10";
        QTest::newRow("gelu-tanh") << R"({"type":"gelu","approximate":"tanh"})"
                                   << "2x10";
        QTest::newRow("silu") << R"({"type":"silu"})"
                              << "2x10";
        QTest::newRow("maxpool2d") << R"({"type":"maxpool2d","kernel":2})"
                                   << "2x2x4x4";
        QTest::newRow("maxpool2d-3s2p1")
            << R"({"type":"maxpool2d","kernel":3,"stride":2,"padding":1})"
            << "1x2x5x5";
        QTest::newRow("avgpool2d") << R"({"type":"avgpool2d","kernel":2})"
                                   << "2x2x4x4";
        QTest::newRow("globalavgpool") << R"({"type":"globalavgpool"})"
                                       << "2x3x4x4";
        // Uneven, overlapping bins (5 -> 3: rows 0-1, 1-3, 3-4), and a plane repeated (2 -> 3).
        QTest::newRow("adaptiveavgpool2d-overlapping")
            << R"({"type":"adaptiveavgpool2d","output_size":3})"
            << "2x2x5x5";
        QTest::newRow("adaptiveavgpool2d-upsampling")
            << R"({"type":"adaptiveavgpool2d","output_size":[3,4]})"
            << "1x2x2x3";
        // Bilinear resizing: by 2, to a size up one way and down the other, and down by half.
        QTest::newRow("resize-scale2") << R"({"type":"resize","scale_factor":2})"
                                       << "2x2x3x4";
        QTest::newRow("resize-size") << R"({"type":"resize","size":[7,3]})"
                                     << "1x2x4x5";
        QTest::newRow("resize-down") << R"({"type":"resize","scale_factor":0.5})"
                                     << "1x3x8x6";
        QTest::newRow("dropout") << R"({"type":"dropout","p":0.3})"
                                 << "4x8";
        QTest::newRow("flatten") << R"({"type":"flatten"})"
                                 << "2x2x3x3";
        QTest::newRow("add") << R"({"type":"add"})"
                             << "2x3;2x3";
        QTest::newRow("shortcut_pad") << R"({"type":"shortcut_pad","out_channels":4,"stride":2})"
                                      << "2x2x4x4";
        // A detector's neck: parts of unequal channel counts, and upsampling by 2 and 3.
        QTest::newRow("concat") << R"({"type":"concat","inputs":["a","b","c"]})"
                                << "2x2x3x3;2x1x3x3;2x3x3x3";
        QTest::newRow("upsample") << R"({"type":"upsample","scale_factor":2})"
                                  << "2x3x3x4";
        QTest::newRow("upsample-3") << R"({"type":"upsample","scale_factor":3})"
                                    << "1x2x2x2";
        // A GPT's layers: a linear layer maps a sequence's last dimension.
        QTest::newRow("linear-sequence") << R"({"type":"linear","out_features":3})"
                                         << "2x4x5";
        QTest::newRow("embedding") << R"({"type":"embedding","num_embeddings":5,"embedding_dim":3})"
                                   << "2x6";
        QTest::newRow("position_embedding") << R"({"type":"position_embedding","block_size":6})"
                                            << "2x4x3";
        QTest::newRow("layer_norm") << R"({"type":"layer_norm"})"
                                    << "3x4x5";
        QTest::newRow("causal_self_attention") << R"({"type":"causal_self_attention","n_head":2})"
                                               << "2x5x12";
        QTest::newRow("causal_self_attention-dropout")
            << R"({"type":"causal_self_attention","n_head":2,"dropout":0.3})"
            << "2x5x12";
    }
    void layer() {
        QFETCH(QString, spec);
        QFETCH(QString, shapes);
        auto l = createLayer(nlohmann::json::parse(spec.toStdString()));
        l->setName("under-test");
        std::vector<Shape> in;
        for (const QString& s : shapes.split(';'))
            in.push_back(Shape::parse(s.toStdString(), "shape"));
        const auto r = test::gradCheckLayer(*m_backend, *l, in, 7);
        qInfo("%s: worst relative error %.2e (%s)", qPrintable(spec), r.worstRelativeError,
              r.worstTensor.c_str());
        QVERIFY2(r.worstRelativeError < 1e-2f, r.worstTensor.c_str());
    }

    // A dilated convolution computes PyTorch's definition: out(k, i, j) = bias(k) + sum over c,
    // r, s of x(c, i * stride - pad + r * dilation, j * stride - pad + s * dilation) * w(k, c, r,
    // s), zero outside the input; a non-square input, so rows and columns cannot be swapped.
    void dilatedConvolutionIsItsDefinition() {
        const int64_t c = 2, h = 9, w = 7, k = 3, taps = 3, stride = 1, pad = 1, dilation = 2;
        auto layer = createLayer({{"type", "conv2d"},
                                  {"out_channels", k},
                                  {"kernel", taps},
                                  {"padding", pad},
                                  {"dilation", dilation}});
        const Shape xs{1, c, h, w};
        const Shape ys = layer->outputShape({xs});
        QCOMPARE(ys, (Shape{1, k, h - 2, w - 2})); // a span of 5 with padding 1 loses 2
        layer->init(*m_backend, {xs}, 3);
        Tensor x = Tensor::host(xs, DType::F32);
        for (int64_t i = 0; i < x.numel(); ++i)
            x.data<float>()[i] = 2.0f * math::uniform01(5, static_cast<uint64_t>(i)) - 1.0f;
        Tensor y = Tensor::host(ys, DType::F32);
        layer->forward(*m_backend, {&x}, y, false);
        const float* wt = layer->params()[0]->value.data<float>();
        const float* bias = layer->params()[1]->value.data<float>();
        double worst = 0.0;
        for (int64_t o = 0; o < k; ++o)
            for (int64_t i = 0; i < ys[2]; ++i)
                for (int64_t j = 0; j < ys[3]; ++j) {
                    double sum = bias[o];
                    for (int64_t ci = 0; ci < c; ++ci)
                        for (int64_t r = 0; r < taps; ++r)
                            for (int64_t q = 0; q < taps; ++q) {
                                const int64_t yi = i * stride - pad + r * dilation;
                                const int64_t xj = j * stride - pad + q * dilation;
                                if (yi < 0 || yi >= h || xj < 0 || xj >= w)
                                    continue;
                                sum +=
                                    static_cast<double>(x.data<float>()[(ci * h + yi) * w + xj]) *
                                    wt[((o * c + ci) * taps + r) * taps + q];
                            }
                    const double got = y.data<float>()[(o * ys[2] + i) * ys[3] + j];
                    worst = std::max(worst, std::fabs(got - sum));
                }
        qInfo("dilated convolution against its definition: max |difference| %.2e", worst);
        QVERIFY(worst < 1e-5);
    }

    void softmaxCrossEntropy_data() {
        QTest::addColumn<float>("smoothing");
        QTest::newRow("plain") << 0.0f;
        QTest::newRow("label-smoothing") << 0.1f;
    }
    void softmaxCrossEntropy() {
        QFETCH(float, smoothing);
        const int64_t n = 4, c = 5;
        Tensor logits = Tensor::host({n, c}, DType::F32);
        Tensor labels = Tensor::host({n}, DType::I32);
        for (int64_t i = 0; i < n * c; ++i)
            logits.data<float>()[i] = 3.0f * math::uniform01(3, static_cast<uint64_t>(i)) - 1.5f;
        for (int64_t i = 0; i < n; ++i)
            labels.data<int32_t>()[i] = static_cast<int32_t>((i * 3) % c);
        Tensor sums = Tensor::host({2}, DType::F32);
        Tensor grad = Tensor::host({n, c}, DType::F32);
        const auto loss = [&]() {
            m_backend->fill(sums, 0.0f);
            m_backend->softmaxCrossEntropy(logits, labels, smoothing, sums, nullptr, nullptr, 1.0f);
            return static_cast<double>(sums.data<float>()[0]);
        };
        m_backend->fill(sums, 0.0f);
        m_backend->softmaxCrossEntropy(logits, labels, smoothing, sums, &grad, nullptr, 1.0f);
        double worst = 0.0;
        for (int64_t i = 0; i < n * c; ++i) {
            float& v = logits.data<float>()[i];
            const float saved = v;
            v = saved + 1e-2f;
            const double plus = loss();
            v = saved - 1e-2f;
            const double minus = loss();
            v = saved;
            worst = std::max(worst, std::fabs((plus - minus) / 2e-2 - grad.data<float>()[i]));
        }
        qInfo("max |numeric - analytic| = %.2e", worst);
        QVERIFY(worst < 1e-3);
        // The loss against PyTorch's value for a known case: uniform logits give log(C).
        m_backend->fill(logits, 0.0f);
        QCOMPARE(static_cast<float>(loss()), std::log(5.0f));
    }

    // YOLOv8's SPPF pools 5x5 windows at stride 1 padded by 2, so one maximum feeds many
    // outputs and random inputs put near-ties inside a finite difference's step: checked
    // instead against PyTorch 1.13's max_pool2d(x, 5, 1, 2) and its backward on whole numbers
    // (exact), the input a permutation of -18..17 and the gradient ((31 i) mod 36) - 18.
    void maxPoolSppfWindowsMatchPyTorch() {
        Tensor x = Tensor::host({1, 1, 6, 6}, DType::F32),
               dy = Tensor::host({1, 1, 6, 6}, DType::F32);
        for (int i = 0; i < 36; ++i) {
            x.data<float>()[i] = static_cast<float>((i * 7919) % 36 - 18);
            dy.data<float>()[i] = static_cast<float>((i * 31) % 36 - 18);
        }
        auto pool = createLayer(
            nlohmann::json::parse(R"({"type":"maxpool2d","kernel":5,"stride":1,"padding":2})"));
        pool->setName("sppf");
        pool->init(*m_backend, {x.shape()}, 1);
        QCOMPARE(pool->outputShape({x.shape()}), x.shape());
        Tensor y = Tensor::host(x.shape(), DType::F32), dx = Tensor::host(x.shape(), DType::F32);
        pool->forward(*m_backend, {&x}, y, true);
        pool->backward(*m_backend, {&x}, y, dy, {&dx});
        const int torchY[] = {35, 35, 35, 35, 34, 33, 35, 35, 35, 35, 34, 33,
                              35, 35, 35, 35, 34, 33, 30, 30, 30, 29, 28, 27,
                              24, 24, 24, 23, 22, 21, 18, 18, 18, 17, 16, 15};
        const int torchDx[] = {0, -18, 12,  -3, 0, 0, -15, -15, 16, 11,  0, 0,
                               3, -9,  -14, 17, 0, 0, 21,  -3,  -8, -13, 0, 0,
                               0, 0,   0,   0,  0, 0, 0,   0,   0,  0,   0, 0};
        for (int i = 0; i < 36; ++i) {
            QCOMPARE(y.data<float>()[i], static_cast<float>(torchY[i] - 18));
            QCOMPARE(dx.data<float>()[i], static_cast<float>(torchDx[i]));
        }
    }

    // Max pooling as PyTorch: the first maximum wins, a NaN anywhere in the window propagates,
    // an all -inf window still has an argmax (the backward scatters to a real element).
    void maxPoolTiesNanAndInfinity() {
        const float inf = std::numeric_limits<float>::infinity();
        const float nan = std::numeric_limits<float>::quiet_NaN();
        Tensor x = Tensor::host({1, 3, 2, 2}, DType::F32);
        const float values[] = {5, 5, 1, 0, 1, 2, 3, nan, -inf, -inf, -inf, -inf};
        std::copy(std::begin(values), std::end(values), x.data<float>());
        PoolDesc d;
        d.n = 1, d.c = 3, d.h = 2, d.w = 2;
        Tensor y = Tensor::host({1, 3, 1, 1}, DType::F32);
        Tensor idx = Tensor::host({1, 3, 1, 1}, DType::I32);
        m_backend->poolForward(d, x, y, idx);
        QCOMPARE(y.data<float>()[0], 5.0f);
        QCOMPARE(idx.data<int32_t>()[0], 0);
        QVERIFY(std::isnan(y.data<float>()[1]));
        QCOMPARE(idx.data<int32_t>()[1], 3);
        QCOMPARE(y.data<float>()[2], -inf);
        QCOMPARE(idx.data<int32_t>()[2], 0);
        d.pad = 2; // more than half the kernel: a window would lie wholly in the padding
        try {
            m_backend->poolForward(d, x, y, idx);
            QFAIL("accepted padding larger than half the kernel");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("geometry") != std::string::npos, e.what());
        }
    }

    // ReLU6 as PyTorch's (hardtanh between 0 and 6): clipped at both ends, no gradient at
    // either bound or past it (finite differences above stay clear of the kinks).
    void relu6ClipsAtBothEnds() {
        Tensor x = Tensor::host({6}, DType::F32), dy = Tensor::host({6}, DType::F32);
        const float values[] = {-1.0f, 0.0f, 3.0f, 5.99f, 6.0f, 7.5f};
        std::copy(std::begin(values), std::end(values), x.data<float>());
        std::fill(dy.data<float>(), dy.data<float>() + 6, 1.0f);
        Tensor y = Tensor::host({6}, DType::F32), dx = Tensor::host({6}, DType::F32);
        m_backend->activationForward(Activation::ReLU6, 0.0f, x, y);
        m_backend->activationBackward(Activation::ReLU6, 0.0f, x, dy, dx);
        const std::vector<float> forward(y.data<float>(), y.data<float>() + 6),
            backward(dx.data<float>(), dx.data<float>() + 6);
        QCOMPARE(forward, (std::vector<float>{0.0f, 0.0f, 3.0f, 5.99f, 6.0f, 6.0f}));
        QCOMPARE(backward, (std::vector<float>{0.0f, 0.0f, 1.0f, 1.0f, 0.0f, 0.0f}));
    }

    // GELU's tanh form against PyTorch 1.13's F.gelu(x, approximate='tanh') and its gradient,
    // computed in float64 (the figures below); a spec asking for another form is refused.
    void geluTanhMatchesPyTorch() {
        const std::vector<float> xs{-3.0f, -1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 3.0f};
        const double torchY[] = {
            -0.0036373920817729943, -0.15880800939172324, -0.15428599017485606, 0.0,
            0.34571400982514394,    0.8411919906082768,   2.996362607918227};
        const double torchDx[] = {
            -0.011584166630969648, -0.08296408384578252, 0.13263009646535764, 0.5,
            0.8673699035346424,    1.0829640838457826,   1.0115841666309695};
        const auto n = static_cast<int64_t>(xs.size());
        Tensor x = Tensor::host({n}, DType::F32), dy = Tensor::host({n}, DType::F32);
        std::copy(xs.begin(), xs.end(), x.data<float>());
        std::fill(dy.data<float>(), dy.data<float>() + n, 1.0f);
        Tensor y = Tensor::host({n}, DType::F32), dx = Tensor::host({n}, DType::F32);
        m_backend->activationForward(Activation::GELUTanh, 0.0f, x, y);
        m_backend->activationBackward(Activation::GELUTanh, 0.0f, x, dy, dx);
        for (int64_t i = 0; i < n; ++i) {
            QVERIFY2(std::abs(y.data<float>()[i] - torchY[i]) < 1e-6,
                     qPrintable(QString::number(i)));
            QVERIFY2(std::abs(dx.data<float>()[i] - torchDx[i]) < 1e-6,
                     qPrintable(QString::number(i)));
        }
        try {
            createLayer(nlohmann::json::parse(R"({"type":"gelu","approximate":"erf"})"));
            QFAIL("approximate=erf was accepted");
        } catch (const ConfigError& e) {
            QVERIFY2(std::string(e.what()).find("\"tanh\"") != std::string::npos, e.what());
        }
    }

    // SiLU against PyTorch 1.13's F.silu and its gradient in float64 (the figures below), out
    // to where the sigmoid saturates: relative error within a few float roundings, with the
    // vectorised sigmoid of the CPU's elementwise loop.
    void siluMatchesPyTorch() {
        const std::vector<float> xs{-20.0f, -3.0f, -1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 3.0f, 20.0f};
        const double torchY[] = {-4.122307236380407e-08,
                                 -0.14227761953270035,
                                 -0.2689414213699951,
                                 -0.1887703343990727,
                                 0.0,
                                 0.3112296656009273,
                                 0.7310585786300049,
                                 2.8577223804672998,
                                 19.999999958776925};
        const double torchDx[] = {-3.9161918660646786e-08,
                                  -0.08810410601516962,
                                  0.07232948812851325,
                                  0.2600388126973482,
                                  0.5,
                                  0.7399611873026519,
                                  0.9276705118714869,
                                  1.0881041060151693,
                                  1.0000000391619202};
        const auto n = static_cast<int64_t>(xs.size());
        Tensor x = Tensor::host({n}, DType::F32), dy = Tensor::host({n}, DType::F32);
        std::copy(xs.begin(), xs.end(), x.data<float>());
        std::fill(dy.data<float>(), dy.data<float>() + n, 1.0f);
        Tensor y = Tensor::host({n}, DType::F32), dx = Tensor::host({n}, DType::F32);
        m_backend->activationForward(Activation::SiLU, 0.0f, x, y);
        m_backend->activationBackward(Activation::SiLU, 0.0f, x, dy, dx);
        for (int64_t i = 0; i < n; ++i) {
            const auto near = [](double got, double want) { // 8 float roundings
                return std::abs(got - want) <= 1e-6 * std::abs(want) + 1e-12;
            };
            QVERIFY2(
                near(y.data<float>()[i], torchY[i]),
                qPrintable(QString("y at %1: %2").arg(xs[i]).arg(y.data<float>()[i], 0, 'g', 9)));
            QVERIFY2(
                near(dx.data<float>()[i], torchDx[i]),
                qPrintable(QString("dx at %1: %2").arg(xs[i]).arg(dx.data<float>()[i], 0, 'g', 9)));
        }
        // Densely over [-100, 100] against the same formulas in double precision: the tails,
        // where a sigmoid built on 1 + expm1 would cancel to zero, keep their relative accuracy
        // down to where float's normal range ends.
        constexpr int64_t kPoints = 20001;
        Tensor sweep = Tensor::host({kPoints}, DType::F32),
               ones = Tensor::host({kPoints}, DType::F32);
        for (int64_t i = 0; i < kPoints; ++i)
            sweep.data<float>()[i] = -100.0f + 0.01f * static_cast<float>(i);
        std::fill(ones.data<float>(), ones.data<float>() + kPoints, 1.0f);
        Tensor sy = Tensor::host({kPoints}, DType::F32), sdx = Tensor::host({kPoints}, DType::F32);
        m_backend->activationForward(Activation::SiLU, 0.0f, sweep, sy);
        m_backend->activationBackward(Activation::SiLU, 0.0f, sweep, ones, sdx);
        for (int64_t i = 0; i < kPoints; ++i) {
            const double v = sweep.data<float>()[i], s = 1.0 / (1.0 + std::exp(-v));
            const double wantY = v * s, wantDx = s * (1.0 + v * (1.0 - s));
            // dx's terms cancel where it crosses zero (x near -1.28): its error is relative to
            // their size, as in any float evaluation of 1 + x (1 - s).
            const double dxTerms = s * (1.0 + std::abs(v) * (1.0 - s));
            const auto close = [](double got, double want, double size) {
                return std::abs(got - want) <= 1e-6 * size + 1e-35;
            };
            QVERIFY2(close(sy.data<float>()[i], wantY, std::abs(wantY)) &&
                         close(sdx.data<float>()[i], wantDx, dxTerms),
                     qPrintable(QString("at %1: y %2 (want %3), dx %4 (want %5)")
                                    .arg(v)
                                    .arg(sy.data<float>()[i], 0, 'g', 9)
                                    .arg(wantY, 0, 'g', 9)
                                    .arg(sdx.data<float>()[i], 0, 'g', 9)
                                    .arg(wantDx, 0, 'g', 9)));
        }
    }

private:
    std::unique_ptr<Backend> m_backend;
};

QTEST_GUILESS_MAIN(TestGradCheck)
#include "tst_gradcheck.moc"

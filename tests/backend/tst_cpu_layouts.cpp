// The CPU backend keeps activations in oneDNN's channel-blocked layout between layers
// (cpulayout.h). Every op that accepts a blocked tensor must give the values the plain
// tensor gives, whatever mix of layouts it is handed, and hand out plain values through
// copy() and cast(). Blocked tensors are made by a 1x1 convolution with identity weights,
// which oneDNN writes blocked (nChw16c on AVX-512, nChw8c on AVX2) and which is exact.
#include "backend/cpu/cpubackend.h"
#include "backend/cpu/cpuisa.h"
#include "backend/cpu/cpulayout.h"
#include "support/layouttensors.h"
#include "support/testdata.h"

#include <QtTest>

#include <vector>

using namespace tb;

namespace {

constexpr int64_t kN = 4, kC = 32, kH = 6, kW = 6;

} // namespace

class TestCpuLayouts : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        m_backend = std::make_unique<CpuBackend>(2);
        // The channels_last ctest entry: convolutions keep NHWC, as on AMX for bf16.
        if (qgetenv("TB_TEST_MEMORY_FORMAT") == "channels_last")
            m_backend->setMemoryFormat(MemoryFormat::ChannelsLast);
        // The layout is oneDNN's choice per ISA and type: on AMX, bf16 convolutions keep
        // channels-last while f32 ones keep nChw16c.
        const Tensor x = test::randomTensor({kN, kC, kH, kW}, 1);
        m_block = blocked(x, DType::F32).buffer()->layout();
        m_blockBf16 = blocked(x, DType::BF16).buffer()->layout();
        if (m_block == 0)
            QSKIP("oneDNN keeps this CPU's convolution outputs plain: no blocked layout to test");
        qInfo("convolution outputs are kept in %s (f32), %s (bf16)", layoutName(m_block).c_str(),
              layoutName(m_blockBf16).c_str());
    }

    // The values stay; only the layout changes, and copies to the host are plain.
    void blockedTensorsReadBackPlain() {
        const Tensor x = test::randomTensor({kN, kC, kH, kW}, 2);
        for (DType t : {DType::F32, DType::BF16}) {
            const Tensor b = blocked(x, t);
            QCOMPARE(b.buffer()->layout(), convLayout(t));
            const Tensor back = test::toHostF32(*m_backend, b);
            QCOMPARE(back.buffer()->layout(), 0);
            QVERIFY(test::maxAbsDiff(back, test::toHostF32(*m_backend, plain(x, t))) == 0.0f);
        }
    }

    void elementwiseOpsAgreeAcrossLayouts_data() {
        QTest::addColumn<bool>("bf16");
        QTest::newRow("f32") << false;
        QTest::newRow("bf16") << true;
    }
    void elementwiseOpsAgreeAcrossLayouts() {
        QFETCH(bool, bf16);
        const DType t = bf16 ? DType::BF16 : DType::F32;
        const Shape s{kN, kC, kH, kW};
        const Tensor a = test::randomTensor(s, 3), b = test::randomTensor(s, 4);
        // Each op on: both plain, both blocked, and mixed; results compared on the host.
        for (int mix = 0; mix < 4; ++mix) {
            const Tensor ta = mix & 1 ? blocked(a, t) : plain(a, t);
            const Tensor tb = mix & 2 ? blocked(b, t) : plain(b, t);
            Tensor y = m_backend->empty(s, t), ref = m_backend->empty(s, t);
            m_backend->add(ta, tb, y);
            m_backend->add(plain(a, t), plain(b, t), ref);
            QCOMPARE(maxDiff(y, ref), 0.0f);
            m_backend->activationForward(Activation::ReLU, 0.0f, ta, y);
            m_backend->activationForward(Activation::ReLU, 0.0f, plain(a, t), ref);
            QCOMPARE(maxDiff(y, ref), 0.0f);
            m_backend->activationBackward(Activation::ReLU, 0.0f, ta, tb, y);
            m_backend->activationBackward(Activation::ReLU, 0.0f, plain(a, t), plain(b, t), ref);
            QCOMPARE(maxDiff(y, ref), 0.0f);
            if (mix == 3) // blocked in, blocked out
                QCOMPARE(y.buffer()->layout(), convLayout(t));
        }
    }

    void batchNormAgreesAcrossLayouts() {
        const Shape s{kN, kC, kH, kW}, c{kC};
        const Tensor x = test::randomTensor(s, 5, -2.0f, 3.0f), dy = test::randomTensor(s, 6);
        const Tensor gamma = test::randomTensor(c, 7, 0.5f, 1.5f), beta = test::randomTensor(c, 8);
        struct Result {
            Tensor y, dx, dgamma, dbeta, runningMean;
        };
        const auto run = [&](const Tensor& xin, const Tensor& dyin) {
            Result r{m_backend->empty(s, DType::F32), m_backend->empty(s, DType::F32),
                     m_backend->empty(c, DType::F32), m_backend->empty(c, DType::F32),
                     m_backend->empty(c, DType::F32)};
            Tensor runningVar = m_backend->empty(c, DType::F32),
                   mean = m_backend->empty(c, DType::F32), invStd = m_backend->empty(c, DType::F32);
            for (Tensor* t : {&r.dgamma, &r.dbeta, &r.runningMean})
                m_backend->fill(*t, 0.0f);
            m_backend->fill(runningVar, 1.0f);
            m_backend->batchNormForwardTrain(xin, gamma, beta, r.runningMean, runningVar, 0.1f,
                                             1e-5f, r.y, mean, invStd);
            m_backend->batchNormBackward(xin, dyin, gamma, mean, invStd, 1e-5f, r.dx, r.dgamma,
                                         r.dbeta);
            return r;
        };
        const Result ref = run(plain(x, DType::F32), plain(dy, DType::F32));
        for (int mix = 1; mix < 4; ++mix) {
            const Result r = run(mix & 1 ? blocked(x, DType::F32) : plain(x, DType::F32),
                                 mix & 2 ? blocked(dy, DType::F32) : plain(dy, DType::F32));
            // Sums run in another order, so agreement is to rounding, not bits.
            QVERIFY(maxDiff(r.y, ref.y) < 1e-5f);
            QVERIFY(maxDiff(r.dx, ref.dx) < 1e-5f);
            QVERIFY(maxDiff(r.dgamma, ref.dgamma) < 1e-4f);
            QVERIFY(maxDiff(r.dbeta, ref.dbeta) < 1e-4f);
            QVERIFY(maxDiff(r.runningMean, ref.runningMean) < 1e-6f);
        }
    }

    // The fused forms (batch norm or add, then ReLU, in one pass) equal the two ops, in both
    // layouts and both types.
    void fusedReluEqualsTheTwoOps_data() {
        QTest::addColumn<bool>("blockedInput");
        QTest::addColumn<bool>("bf16");
        for (bool b : {false, true})
            for (bool h : {false, true})
                QTest::newRow(qPrintable(QString(b ? "blocked " : "plain ") + (h ? "bf16" : "f32")))
                    << b << h;
    }
    void fusedReluEqualsTheTwoOps() {
        QFETCH(bool, blockedInput);
        QFETCH(bool, bf16);
        const DType t = bf16 ? DType::BF16 : DType::F32;
        const Shape s{kN, kC, kH, kW}, c{kC};
        const Tensor a = test::randomTensor(s, 20), b = test::randomTensor(s, 21);
        const Tensor ta = blockedInput ? blocked(a, t) : plain(a, t);
        const Tensor tb = blockedInput ? blocked(b, t) : plain(b, t);
        Tensor fused = m_backend->empty(s, t), twoOps = m_backend->empty(s, t);
        m_backend->addRelu(ta, tb, fused);
        m_backend->add(ta, tb, twoOps);
        m_backend->activationForward(Activation::ReLU, 0.0f, twoOps, twoOps);
        QCOMPARE(maxDiff(fused, twoOps), 0.0f);
        const Tensor gamma = test::randomTensor(c, 22, 0.5f, 1.5f),
                     beta = test::randomTensor(c, 23);
        for (bool training : {true, false}) {
            Tensor rm = m_backend->empty(c, DType::F32), rv = m_backend->empty(c, DType::F32),
                   mean = m_backend->empty(c, DType::F32), invStd = m_backend->empty(c, DType::F32);
            const auto reset = [&] {
                m_backend->fill(rm, 0.1f);
                m_backend->fill(rv, 2.0f);
            };
            reset();
            if (training)
                m_backend->batchNormReluForwardTrain(ta, gamma, beta, rm, rv, 0.1f, 1e-5f, fused,
                                                     mean, invStd);
            else
                m_backend->batchNormReluForwardInference(ta, gamma, beta, rm, rv, 1e-5f, fused);
            reset();
            if (training)
                m_backend->batchNormForwardTrain(ta, gamma, beta, rm, rv, 0.1f, 1e-5f, twoOps, mean,
                                                 invStd);
            else
                m_backend->batchNormForwardInference(ta, gamma, beta, rm, rv, 1e-5f, twoOps);
            m_backend->activationForward(Activation::ReLU, 0.0f, twoOps, twoOps);
            QCOMPARE(maxDiff(fused, twoOps), 0.0f);
            QCOMPARE(fused.buffer()->layout(), blockedInput ? convLayout(t) : 0);
            if (!training)
                continue;
            // Backward: masking on the fly equals masking, then batch norm's backward.
            Tensor dyFused = blockedInput ? blocked(b, t) : plain(b, t);
            Tensor dyMasked = m_backend->empty(s, t);
            m_backend->activationBackward(Activation::ReLU, 0.0f, fused, dyFused, dyMasked);
            Tensor dxFused = m_backend->empty(s, t), dxTwoOps = m_backend->empty(s, t);
            Tensor dg1 = m_backend->empty(c, DType::F32), db1 = m_backend->empty(c, DType::F32),
                   dg2 = m_backend->empty(c, DType::F32), db2 = m_backend->empty(c, DType::F32);
            for (Tensor* g : {&dg1, &db1, &dg2, &db2})
                m_backend->fill(*g, 0.0f);
            m_backend->batchNormReluBackward(ta, fused, dyFused, gamma, mean, invStd, 1e-5f,
                                             dxFused, dg1, db1);
            m_backend->batchNormBackward(ta, dyMasked, gamma, mean, invStd, 1e-5f, dxTwoOps, dg2,
                                         db2);
            QVERIFY(maxDiff(dxFused, dxTwoOps) < 1e-6f);
            QVERIFY(maxDiff(dg1, dg2) < 1e-4f);
            QVERIFY(maxDiff(db1, db2) < 1e-4f);
        }
    }

    void poolingAndShortcutAgreeAcrossLayouts() {
        const Shape s{kN, kC, kH, kW};
        const Tensor x = test::randomTensor(s, 9), xb = blocked(x, DType::F32),
                     xp = plain(x, DType::F32);
        std::vector<PoolDesc> pools;
        for (PoolKind kind : {PoolKind::Max, PoolKind::Avg}) {
            for (int64_t k : {int64_t{3}, int64_t{2}}) {
                PoolDesc d;
                d.kind = kind;
                d.n = kN, d.c = kC, d.h = kH, d.w = kW;
                d.stride = 2;
                d.kh = d.kw = k;
                d.pad = k == 3 ? 1 : 0; // 2x2 at stride 2 takes the fast path
                pools.push_back(d);
            }
        }
        PoolDesc adaptive = pools.back(); // 6 -> 4: overlapping bins
        adaptive.adaptiveH = adaptive.adaptiveW = 4;
        pools.push_back(adaptive);
        for (const PoolDesc& d : pools) {
            const Shape o{kN, kC, d.outH(), d.outW()};
            Tensor y = m_backend->empty(o, DType::F32), ref = m_backend->empty(o, DType::F32);
            Tensor idx = m_backend->empty(o, DType::I32), refIdx = m_backend->empty(o, DType::I32);
            m_backend->poolForward(d, xb, y, idx);
            m_backend->poolForward(d, xp, ref, refIdx);
            QCOMPARE(maxDiff(y, ref), 0.0f);
            QCOMPARE(y.buffer()->layout(), m_block);
            const Tensor dy = test::randomTensor(o, 10);
            Tensor dx = m_backend->empty(s, DType::F32), refDx = m_backend->empty(s, DType::F32);
            // dx is stored as the forward input was, whatever layout dy comes in.
            m_backend->poolBackward(d, xb, plain(dy, DType::F32), idx, dx);
            m_backend->poolBackward(d, xp, blocked(dy, DType::F32), refIdx, refDx);
            QCOMPARE(dx.buffer()->layout(), m_block);
            QCOMPARE(refDx.buffer()->layout(), 0);
            QVERIFY(maxDiff(dx, refDx) < 1e-6f);
        }
        const Shape o{kN, 2 * kC, kH / 2, kW / 2};
        Tensor y = m_backend->empty(o, DType::F32), ref = m_backend->empty(o, DType::F32);
        m_backend->shortcutPadForward(xb, 2, kC / 2, y);
        m_backend->shortcutPadForward(xp, 2, kC / 2, ref);
        QCOMPARE(maxDiff(y, ref), 0.0f);
        const Tensor dy = test::randomTensor(o, 11);
        Tensor dx = m_backend->empty(s, DType::F32), refDx = m_backend->empty(s, DType::F32);
        m_backend->shortcutPadBackward(blocked(dy, DType::F32), 2, kC / 2, dx);
        m_backend->shortcutPadBackward(plain(dy, DType::F32), 2, kC / 2, refDx);
        QCOMPARE(maxDiff(dx, refDx), 0.0f);
    }

    // A detector neck's concatenation and upsampling read parts in any mix of layouts, give the
    // convolutions' layout out where the channels fit it, and move values exactly.
    void neckOpsAgreeAcrossLayouts_data() { elementwiseOpsAgreeAcrossLayouts_data(); }
    void neckOpsAgreeAcrossLayouts() {
        QFETCH(bool, bf16);
        const DType t = bf16 ? DType::BF16 : DType::F32;
        const Tensor a = test::randomTensor({kN, kC, kH, kW}, 21),
                     b = test::randomTensor({kN, kC, kH, kW}, 22),
                     c = test::randomTensor({kN, 3, kH, kW}, 23); // a part no block fits
        const Shape joined{kN, 2 * kC + 3, kH, kW};
        Tensor y = m_backend->empty(joined, t), ref = m_backend->empty(joined, t);
        const Tensor ab = blocked(a, t), bp = plain(b, t), cp = plain(c, t);
        m_backend->joinChannels({&ab, &bp, &cp}, y);
        const Tensor ap = plain(a, t);
        m_backend->joinChannels({&ap, &bp, &cp}, ref);
        QCOMPARE(maxDiff(y, ref), 0.0f);
        const Tensor dy = test::randomTensor(joined, 24);
        std::vector<Tensor> dx, refDx;
        for (int64_t ch : {kC, kC, int64_t{3}}) {
            dx.push_back(m_backend->empty({kN, ch, kH, kW}, t));
            refDx.push_back(m_backend->empty({kN, ch, kH, kW}, t));
        }
        // the middle part needs no gradient (a graph input): skipped, its channels counted
        m_backend->splitChannels(blocked(dy, t), {&dx[0], nullptr, &dx[2]}, {kC, kC, 3});
        m_backend->splitChannels(plain(dy, t), {&refDx[0], &refDx[1], &refDx[2]}, {kC, kC, 3});
        QCOMPARE(maxDiff(dx[0], refDx[0]), 0.0f);
        QCOMPARE(maxDiff(dx[2], refDx[2]), 0.0f);

        const Shape up{kN, kC, 2 * kH, 2 * kW};
        Tensor u = m_backend->empty(up, t), refU = m_backend->empty(up, t);
        m_backend->upsampleNearestForward(ab, 2, u);
        m_backend->upsampleNearestForward(ap, 2, refU);
        QCOMPARE(u.buffer()->layout(), convLayout(t));
        QCOMPARE(maxDiff(u, refU), 0.0f);
        const Tensor du = test::randomTensor(up, 25);
        Tensor dxu = m_backend->empty({kN, kC, kH, kW}, t),
               refDxu = m_backend->empty({kN, kC, kH, kW}, t);
        m_backend->upsampleNearestBackward(blocked(du, t), 2, dxu);
        m_backend->upsampleNearestBackward(plain(du, t), 2, refDxu);
        QCOMPARE(dxu.buffer()->layout(), convLayout(t));
        QCOMPARE(maxDiff(dxu, refDxu), 0.0f); // the same four values summed in the same order
    }

    // A convolution gives the same values whichever layouts its input and gradient come in
    // (read in place when they are the primitive's, reordered otherwise: under SSE4.1 its
    // backward is a plain gemm fed from blocked tensors).
    void convolutionAgreesAcrossLayouts() {
        const Shape s{kN, kC, kH, kW}, ws{kC, kC, 3, 3};
        const ConvDesc d{kN, kC, kH, kW, kC, 3, 3, 1, 1};
        const Tensor x = test::randomTensor(s, 30), dy = test::randomTensor(s, 31),
                     w = test::randomTensor(ws, 32, -0.2f, 0.2f);
        struct Result {
            Tensor y, dx, dw;
        };
        const auto run = [&](const Tensor& xin, const Tensor& dyin) {
            Result r{m_backend->empty(s, DType::F32), m_backend->empty(s, DType::F32),
                     m_backend->empty(ws, DType::F32)};
            m_backend->fill(r.dw, 0.0f);
            m_backend->convForward(d, xin, w, nullptr, r.y);
            m_backend->convBackward(d, xin, w, dyin, &r.dx, r.dw, nullptr);
            return r;
        };
        const Result ref = run(plain(x, DType::F32), plain(dy, DType::F32));
        for (int mix = 1; mix < 4; ++mix) {
            const Result r = run(mix & 1 ? blocked(x, DType::F32) : plain(x, DType::F32),
                                 mix & 2 ? blocked(dy, DType::F32) : plain(dy, DType::F32));
            QCOMPARE(maxDiff(r.y, ref.y), 0.0f);
            QCOMPARE(maxDiff(r.dx, ref.dx), 0.0f);
            QCOMPARE(maxDiff(r.dw, ref.dw), 0.0f);
        }
    }

    // conv -> batch norm -> ReLU -> add -> conv forward and back: the activations never leave
    // the blocked layout, so the only reorders are of the weights.
    void aResidualChainReordersOnlyWeights() {
        const std::string isa = cpuLowPrecisionSupport().isa;
        if (isa == "sse41" || isa == "avx")
            QSKIP("below AVX2 oneDNN's backward convolutions are a plain gemm: the gradient "
                  "leaves the blocked layout there");
        const Shape s{kN, kC, kH, kW}, c{kC};
        ConvDesc d{kN, kC, kH, kW, kC, 3, 3, 1, 1};
        const Tensor x = blocked(test::randomTensor(s, 12), DType::F32);
        const Tensor w = test::randomTensor({kC, kC, 3, 3}, 13, -0.1f, 0.1f);
        Tensor dw = m_backend->empty({kC, kC, 3, 3}, DType::F32);
        m_backend->fill(dw, 0.0f);
        const Tensor gamma = test::randomTensor(c, 14, 0.5f, 1.5f),
                     beta = test::randomTensor(c, 15);
        Tensor conv1 = m_backend->empty(s, DType::F32), bn = m_backend->empty(s, DType::F32),
               relu = m_backend->empty(s, DType::F32), sum = m_backend->empty(s, DType::F32),
               conv2 = m_backend->empty(s, DType::F32), rm = m_backend->empty(c, DType::F32),
               rv = m_backend->empty(c, DType::F32), mean = m_backend->empty(c, DType::F32),
               invStd = m_backend->empty(c, DType::F32);
        m_backend->fill(rm, 0.0f);
        m_backend->fill(rv, 1.0f);
        // Warm up: primitives and their weight reorders are created on first use.
        for (int pass = 0; pass < 2; ++pass) {
            m_backend->resetReorderCounts();
            m_backend->convForward(d, x, w, nullptr, conv1);
            m_backend->batchNormForwardTrain(conv1, gamma, beta, rm, rv, 0.1f, 1e-5f, bn, mean,
                                             invStd);
            m_backend->activationForward(Activation::ReLU, 0.0f, bn, relu);
            m_backend->add(relu, x, sum);
            m_backend->convForward(d, sum, w, nullptr, conv2);
            Tensor dconv2 = m_backend->empty(s, DType::F32), dsum = m_backend->empty(s, DType::F32);
            m_backend->copy(conv2, dconv2); // a blocked gradient
            m_backend->convBackward(d, sum, w, dconv2, &dsum, dw, nullptr);
            QCOMPARE(dsum.buffer()->layout(), m_block);
        }
        for (const Tensor* t : {&conv1, &bn, &relu, &sum, &conv2})
            QCOMPARE(t->buffer()->layout(), m_block);
        // Two forward convolutions and one backward: the weights in for each (3), backward-data's
        // weights (1) and the weight gradient out (1), at most; no activation.
        QCOMPARE(m_backend->reorderCounts().activations, int64_t{0});
        QVERIFY2(m_backend->reorderCounts().weights <= 5,
                 qPrintable(QString::number(m_backend->reorderCounts().weights)));
    }

    // On AMX oneDNN's bf16 convolutions are channels-last kernels, but one with a single input
    // channel would pick a blocked output that its neighbour then reorders; both keep NHWC.
    void amxBf16ConvolutionsAllKeepChannelsLast() {
        if (!cpuLowPrecisionSupport().amx)
            QSKIP("no AMX here: oneDNN's bf16 convolutions choose their layouts freely");
        const ConvDesc first{kN, 1, kH, kW, kC, 3, 3, 1, 1};
        const ConvDesc second{kN, kC, kH, kW, kC, 3, 3, 1, 1};
        const Tensor x = plain(test::randomTensor({kN, 1, kH, kW}, 31), DType::BF16);
        const Tensor w1 = test::randomTensor({kC, 1, 3, 3}, 32, -0.3f, 0.3f);
        const Tensor w2 = test::randomTensor({kC, kC, 3, 3}, 33, -0.1f, 0.1f);
        Tensor y1 = m_backend->empty({kN, kC, kH, kW}, DType::BF16),
               y2 = m_backend->empty({kN, kC, kH, kW}, DType::BF16);
        for (int pass = 0; pass < 2; ++pass) { // the first creates primitives and weights
            m_backend->resetReorderCounts();
            m_backend->convForward(first, x, w1, nullptr, y1);
            m_backend->convForward(second, y1, w2, nullptr, y2);
        }
        QCOMPARE(y1.buffer()->layout(), kChannelsLast);
        QCOMPARE(y2.buffer()->layout(), kChannelsLast);
        QCOMPARE(m_backend->reorderCounts().activations, int64_t{0});
    }

private:
    int convLayout(DType t) const { return t == DType::BF16 ? m_blockBf16 : m_block; }
    Tensor plain(const Tensor& x, DType t) { return test::onBackendPlain(*m_backend, x, t); }
    Tensor blocked(const Tensor& x, DType t) {
        return test::onBackendInConvLayout(*m_backend, x, t);
    }
    float maxDiff(const Tensor& a, const Tensor& b) {
        return test::maxAbsDiff(test::toHostF32(*m_backend, a), test::toHostF32(*m_backend, b));
    }

    std::unique_ptr<CpuBackend> m_backend;
    int m_block = 0;     // the layout convolutions leave f32 tensors in here
    int m_blockBf16 = 0; // and bf16 tensors
};

QTEST_GUILESS_MAIN(TestCpuLayouts)
#include "tst_cpu_layouts.moc"

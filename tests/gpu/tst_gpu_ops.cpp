// GPU parity: every op of the CUDA backend against the CPU backend in the same binary, in f32,
// f16 and bf16, with maxdiff / NMSE printed per output, and NCCL on one rank. Skips when no GPU
// is usable.
#include "gpucompare.h"

#include "support/testdata.h"

#include "backend/backend.h"
#include "backend/devices.h"
#include "core/errors.h"

#include <QtTest>

#include <chrono>
#include <cmath>
#include <functional>
#include <utility>
#include <vector>

using namespace tb;
using namespace tb::test;

namespace {

// Named host f32 results of one run of an op sequence on one backend.
using Results = std::vector<std::pair<std::string, Tensor>>;
using Run = std::function<Results(Backend&)>;

void addDtypeRows() {
    QTest::addColumn<int>("dtype");
    QTest::newRow("f32") << static_cast<int>(DType::F32);
    QTest::newRow("f16") << static_cast<int>(DType::F16);
    QTest::newRow("bf16") << static_cast<int>(DType::BF16);
}

Tensor rnd(const Shape& s, uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
    return randomTensor(s, seed, lo, hi);
}

} // namespace

class TestGpuOps : public QObject {
    Q_OBJECT

    std::unique_ptr<Backend> m_gpu;
    std::unique_ptr<Backend> m_cpu;

    // Runs `run` on the CPU and the GPU and compares each named output. Outputs whose name
    // starts with '=' must match exactly; those with '~' use the f32 tolerance (statistics and
    // scalars kept in f32 whatever the activation dtype). Every output is compared and printed
    // before the test fails, so one GPU run shows all of them.
    void compareRuns(const std::string& op, DType dtype, const Run& run) {
        const Results ref = run(*m_cpu);
        const Results got = run(*m_gpu);
        QCOMPARE(ref.size(), got.size());
        QString failed;
        for (std::size_t i = 0; i < ref.size(); ++i) {
            std::string name = ref[i].first;
            Tolerance tol = toleranceFor(dtype);
            if (name[0] == '=') {
                tol = exact();
                name = name.substr(1);
            } else if (name[0] == '~') {
                tol = toleranceFor(DType::F32);
                name = name.substr(1);
            }
            const std::string label = op + " " + name + " " + std::string(dtypeName(dtype));
            const Comparison c = compareTensors(label, ref[i].second, got[i].second, tol);
            if (!c.ok)
                failed += QString("%1%2: %3 elements out of tolerance, maxdiff %4")
                              .arg(failed.isEmpty() ? QString() : QString("; "),
                                   QString::fromStdString(label))
                              .arg(c.failing)
                              .arg(c.maxAbs);
        }
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
    }

private slots:
    void initTestCase() {
        TB_REQUIRE_GPU(m_gpu);
        m_cpu = createCpuBackend(1);
        std::printf("GPU: %s\nCPU: %s\n", m_gpu->description().c_str(),
                    m_cpu->description().c_str());
    }

    void linear_data() { addDtypeRows(); }
    void linear() {
        QFETCH(int, dtype);
        const DType dt = static_cast<DType>(dtype);
        const int64_t n = 8, in = 37, out = 19;
        const Tensor hx = rnd({n, in}, 1), hw = rnd({out, in}, 2, -0.3f, 0.3f), hb = rnd({out}, 3),
                     hdy = rnd({n, out}, 4), hdw = rnd({out, in}, 5), hdb = rnd({out}, 6);
        compareRuns("linear", dt, [&](Backend& b) {
            Tensor x = upload(b, hx, dt), w = upload(b, hw, DType::F32),
                   bias = upload(b, hb, DType::F32), dy = upload(b, hdy, dt);
            Tensor y = b.empty({n, out}, dt), dx = b.empty({n, in}, dt);
            Tensor dw = upload(b, hdw, DType::F32), db = upload(b, hdb, DType::F32);
            b.linearForward(x, w, &bias, y);
            b.linearBackward(x, w, dy, &dx, dw, &db);
            return Results{{"y", download(b, y)},
                           {"dx", download(b, dx)},
                           {"dw(accumulated)", download(b, dw)},
                           {"db(accumulated)", download(b, db)}};
        });
    }

    void conv_data() {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<int>("kernel");
        QTest::addColumn<int>("stride");
        QTest::addColumn<int>("pad");
        QTest::addColumn<bool>("bias");
        QTest::addColumn<int>("groups");
        QTest::addColumn<int>("dilation");
        for (DType dt : {DType::F32, DType::F16, DType::BF16}) {
            const std::string d(dtypeName(dt));
            QTest::newRow((d + "-3x3-s1-p1-bias").c_str())
                << static_cast<int>(dt) << 3 << 1 << 1 << true << 1 << 1;
            QTest::newRow((d + "-3x3-s2-p1").c_str())
                << static_cast<int>(dt) << 3 << 2 << 1 << false << 1 << 1;
            QTest::newRow((d + "-1x1-s2-p0").c_str())
                << static_cast<int>(dt) << 1 << 2 << 0 << false << 1 << 1;
            // MobileNet's depthwise 3x3 (one group per channel) and a grouped one.
            QTest::newRow((d + "-3x3-s2-p1-depthwise").c_str())
                << static_cast<int>(dt) << 3 << 2 << 1 << false << 8 << 1;
            QTest::newRow((d + "-3x3-s1-p1-groups2-bias").c_str())
                << static_cast<int>(dt) << 3 << 1 << 1 << true << 2 << 1;
            // DeepLab's atrous 3x3 (padding = dilation keeps the size) and a strided one.
            QTest::newRow((d + "-3x3-s1-p2-dilation2").c_str())
                << static_cast<int>(dt) << 3 << 1 << 2 << false << 1 << 2;
            QTest::newRow((d + "-3x3-s2-p1-dilation4-bias").c_str())
                << static_cast<int>(dt) << 3 << 2 << 1 << true << 1 << 4;
        }
    }
    void conv() {
        QFETCH(int, dtype);
        QFETCH(int, kernel);
        QFETCH(int, stride);
        QFETCH(int, pad);
        QFETCH(bool, bias);
        QFETCH(int, groups);
        QFETCH(int, dilation);
        const DType dt = static_cast<DType>(dtype);
        ConvDesc d;
        d.n = 4, d.c = 8, d.h = 12, d.w = 12, d.k = groups == 8 ? 8 : 16, d.r = kernel,
        d.s = kernel;
        d.stride = stride, d.pad = pad, d.groups = groups, d.dilation = dilation;
        const Shape xs{d.n, d.c, d.h, d.w}, ws{d.k, d.c / groups, d.r, d.s},
            ys{d.n, d.k, d.outH(), d.outW()};
        const Tensor hx = rnd(xs, 11), hw = rnd(ws, 12, -0.2f, 0.2f), hb = rnd({d.k}, 13),
                     hdy = rnd(ys, 14), hdw = rnd(ws, 15), hdb = rnd({d.k}, 16);
        compareRuns("conv", dt, [&](Backend& b) {
            Tensor x = upload(b, hx, dt), w = upload(b, hw, DType::F32),
                   bb = upload(b, hb, DType::F32), dy = upload(b, hdy, dt);
            Tensor y = b.empty(ys, dt), dx = b.empty(xs, dt);
            Tensor dw = upload(b, hdw, DType::F32), db = upload(b, hdb, DType::F32);
            b.convForward(d, x, w, bias ? &bb : nullptr, y);
            b.convBackward(d, x, w, dy, &dx, dw, bias ? &db : nullptr);
            return Results{{"y", download(b, y)},
                           {"dx", download(b, dx)},
                           {"dw(accumulated)", download(b, dw)},
                           {"db(accumulated)", download(b, db)}};
        });
    }

    void pool_data() {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("kernel");
        QTest::addColumn<int>("stride");
        QTest::addColumn<int>("pad");
        QTest::addColumn<int>("adaptive"); // output side of adaptive pooling, 0: a fixed window
        for (DType dt : {DType::F32, DType::F16, DType::BF16}) {
            const std::string d(dtypeName(dt));
            const int t = static_cast<int>(dt);
            const int mx = static_cast<int>(PoolKind::Max), av = static_cast<int>(PoolKind::Avg);
            QTest::newRow((d + "-max-2x2").c_str()) << t << mx << 2 << 2 << 0 << 0;
            QTest::newRow((d + "-max-3x3-s2-p1").c_str()) << t << mx << 3 << 2 << 1 << 0;
            QTest::newRow((d + "-max-5x5-s1-p2").c_str()) << t << mx << 5 << 1 << 2 << 0; // SPPF
            QTest::newRow((d + "-avg-2x2").c_str()) << t << av << 2 << 2 << 0 << 0;
            QTest::newRow((d + "-avg-global").c_str()) << t << av << 9 << 1 << 0 << 0;
            // 9 -> 4: bins of 3 overlapping by one; 9 -> 12: inputs repeated.
            QTest::newRow((d + "-adaptive-4").c_str()) << t << av << 0 << 0 << 0 << 4;
            QTest::newRow((d + "-adaptive-12").c_str()) << t << av << 0 << 0 << 0 << 12;
        }
    }
    void pool() {
        QFETCH(int, dtype);
        QFETCH(int, kind);
        QFETCH(int, kernel);
        QFETCH(int, stride);
        QFETCH(int, pad);
        QFETCH(int, adaptive);
        const DType dt = static_cast<DType>(dtype);
        PoolDesc d;
        d.kind = static_cast<PoolKind>(kind);
        d.n = 3, d.c = 5, d.h = 9, d.w = 9, d.kh = kernel, d.kw = kernel, d.stride = stride;
        d.pad = pad;
        d.adaptiveH = d.adaptiveW = adaptive;
        const Shape xs{d.n, d.c, d.h, d.w}, ys{d.n, d.c, d.outH(), d.outW()};
        const Tensor hx = rnd(xs, 21), hdy = rnd(ys, 22);
        const bool isMax = d.kind == PoolKind::Max;
        compareRuns("pool", dt, [&](Backend& b) {
            Tensor x = upload(b, hx, dt), dy = upload(b, hdy, dt);
            Tensor y = b.empty(ys, dt), idx = b.empty(ys, DType::I32), dx = b.empty(xs, dt);
            b.poolForward(d, x, y, idx);
            b.poolBackward(d, x, dy, idx, dx);
            Results r{{isMax ? "=y" : "y", download(b, y)}, {"dx", download(b, dx)}};
            if (isMax)
                r.emplace_back("=indices", download(b, idx));
            return r;
        });
    }

    void batchNorm_data() {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<float>("eps");
        // f32 / f16 run cuDNN (any eps > 0 in cuDNN 9); bf16 runs the plugin's own kernels.
        QTest::newRow("f32-cudnn") << static_cast<int>(DType::F32) << 1e-5f;
        QTest::newRow("f16-cudnn") << static_cast<int>(DType::F16) << 1e-5f;
        QTest::newRow("bf16-own") << static_cast<int>(DType::BF16) << 1e-5f;
        QTest::newRow("f32-cudnn-small-eps") << static_cast<int>(DType::F32) << 1e-6f;
        QTest::newRow("f16-cudnn-small-eps") << static_cast<int>(DType::F16) << 1e-6f;
    }
    void batchNorm() {
        QFETCH(int, dtype);
        QFETCH(float, eps);
        const DType dt = static_cast<DType>(dtype);
        const int64_t n = 6, c = 5, h = 7, w = 7;
        const Shape xs{n, c, h, w};
        const Tensor hx = rnd(xs, 31, -2.0f, 3.0f), hg = rnd({c}, 32, 0.5f, 1.5f),
                     hbeta = rnd({c}, 33), hrm = rnd({c}, 34), hrv = rnd({c}, 35, 0.5f, 2.0f),
                     hdy = rnd(xs, 36), hdg = rnd({c}, 37), hdb = rnd({c}, 38);
        compareRuns("batchNorm", dt, [&](Backend& b) {
            Tensor x = upload(b, hx, dt), g = upload(b, hg, DType::F32),
                   beta = upload(b, hbeta, DType::F32), rm = upload(b, hrm, DType::F32),
                   rv = upload(b, hrv, DType::F32), dy = upload(b, hdy, dt);
            Tensor y = b.empty(xs, dt), yi = b.empty(xs, dt), dx = b.empty(xs, dt);
            Tensor sm = b.empty({c}, DType::F32), sis = b.empty({c}, DType::F32);
            Tensor dg = upload(b, hdg, DType::F32), db = upload(b, hdb, DType::F32);
            b.batchNormForwardTrain(x, g, beta, rm, rv, 0.1f, eps, y, sm, sis);
            b.batchNormBackward(x, dy, g, sm, sis, eps, dx, dg, db);
            b.batchNormForwardInference(x, g, beta, rm, rv, eps, yi);
            return Results{{"y", download(b, y)},
                           {"~saveMean", download(b, sm)},
                           {"~saveInvStd", download(b, sis)},
                           {"~runningMean", download(b, rm)},
                           {"~runningVar(unbiased)", download(b, rv)},
                           {"dx", download(b, dx)},
                           {"dgamma(accumulated)", download(b, dg)},
                           {"dbeta(accumulated)", download(b, db)},
                           {"yInference", download(b, yi)}};
        });
    }

    void activation_data() {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<int>("act");
        for (DType dt : {DType::F32, DType::F16, DType::BF16})
            for (Activation a : {Activation::ReLU, Activation::LeakyReLU, Activation::GELU,
                                 Activation::ReLU6, Activation::GELUTanh, Activation::SiLU}) {
                const char* an = a == Activation::ReLU        ? "relu"
                                 : a == Activation::LeakyReLU ? "leaky"
                                 : a == Activation::GELU      ? "gelu"
                                 : a == Activation::GELUTanh  ? "gelu-tanh"
                                 : a == Activation::SiLU      ? "silu"
                                                              : "relu6";
                QTest::newRow((std::string(dtypeName(dt)) + "-" + an).c_str())
                    << static_cast<int>(dt) << static_cast<int>(a);
            }
    }
    void activation() {
        QFETCH(int, dtype);
        QFETCH(int, act);
        const DType dt = static_cast<DType>(dtype);
        const Activation a = static_cast<Activation>(act);
        // Past ReLU6's upper bound too.
        const Tensor hx = rnd({4, 333}, 41, -8.0f, 8.0f), hdy = rnd({4, 333}, 42);
        compareRuns("activation", dt, [&](Backend& b) {
            Tensor x = upload(b, hx, dt), dy = upload(b, hdy, dt);
            Tensor y = b.empty(x.shape(), dt), dx = b.empty(x.shape(), dt);
            b.activationForward(a, 0.01f, x, y);
            b.activationBackward(a, 0.01f, x, dy, dx);
            return Results{{"y", download(b, y)}, {"dx", download(b, dx)}};
        });
    }

    void dropoutAddCastShortcut_data() { addDtypeRows(); }
    void dropoutAddCastShortcut() {
        QFETCH(int, dtype);
        const DType dt = static_cast<DType>(dtype);
        const Shape s{4, 6, 8, 8};
        const Tensor ha = rnd(s, 51), hb = rnd(s, 52), hdy = rnd({4, 10, 4, 4}, 53);
        compareRuns("elementwise", dt, [&](Backend& b) {
            Tensor a = upload(b, ha, dt), bb = upload(b, hb, dt), dyS = upload(b, hdy, dt);
            Tensor y = b.empty(s, dt), mask = b.empty(s, DType::U8), dx = b.empty(s, dt);
            b.dropoutForward(a, 0.3f, 1234, y, mask);
            b.dropoutBackward(bb, mask, 0.3f, dx);
            Tensor sum = b.empty(s, dt);
            b.add(a, bb, sum);
            b.add(sum, bb, sum); // y may alias a
            Tensor a32 = upload(b, ha, DType::F32), casted = b.empty(s, dt);
            b.cast(a32, casted);
            Tensor sc = b.empty({4, 10, 4, 4}, dt), scBack = b.empty(s, dt);
            b.shortcutPadForward(a, 2, 2, sc);
            b.shortcutPadBackward(dyS, 2, 2, scBack);
            return Results{{"=dropoutMask", download(b, mask)},
                           {"dropoutY", download(b, y)},
                           {"dropoutDx", download(b, dx)},
                           {"add", download(b, sum)},
                           {"=castFromF32", download(b, casted)},
                           {"=shortcutForward", download(b, sc)},
                           {"=shortcutBackward", download(b, scBack)}};
        });
    }

    // A detector's neck: channel concatenation of unequal parts (a gradient not needed for one)
    // and nearest upsampling by 2; values only move, except upsampling's summed gradient. And a
    // segmentation head's bilinear resizing, up and down.
    void neck_data() { addDtypeRows(); }
    void neck() {
        QFETCH(int, dtype);
        const DType dt = static_cast<DType>(dtype);
        const Tensor ha = rnd({3, 4, 5, 6}, 61), hb = rnd({3, 7, 5, 6}, 62),
                     hdy = rnd({3, 11, 5, 6}, 63), hdu = rnd({3, 4, 10, 12}, 64),
                     hdr = rnd({3, 4, 11, 13}, 65), hds = rnd({3, 4, 3, 4}, 66);
        compareRuns("neck", dt, [&](Backend& b) {
            Tensor a = upload(b, ha, dt), bb = upload(b, hb, dt), dy = upload(b, hdy, dt),
                   du = upload(b, hdu, dt);
            Tensor joined = b.empty({3, 11, 5, 6}, dt), da = b.empty({3, 4, 5, 6}, dt);
            b.joinChannels({&a, &bb}, joined);
            b.splitChannels(dy, {&da, nullptr}, {4, 7});
            Tensor up = b.empty({3, 4, 10, 12}, dt), dUp = b.empty({3, 4, 5, 6}, dt);
            b.upsampleNearestForward(a, 2, up);
            b.upsampleNearestBackward(du, 2, dUp);
            // Bilinear, up by a fraction and down: the CPU scatters, the GPU gathers.
            Tensor bigger = b.empty({3, 4, 11, 13}, dt), smaller = b.empty({3, 4, 3, 4}, dt);
            Tensor dBigger = b.empty({3, 4, 5, 6}, dt), dSmaller = b.empty({3, 4, 5, 6}, dt);
            b.resizeBilinearForward(a, bigger);
            b.resizeBilinearForward(a, smaller);
            b.resizeBilinearBackward(upload(b, hdr, dt), dBigger);
            b.resizeBilinearBackward(upload(b, hds, dt), dSmaller);
            return Results{{"=concat", download(b, joined)},
                           {"=concatBackward", download(b, da)},
                           {"=upsample", download(b, up)},
                           {"upsampleBackward", download(b, dUp)},
                           {"resizeUp", download(b, bigger)},
                           {"resizeDown", download(b, smaller)},
                           {"resizeUpBackward", download(b, dBigger)},
                           {"resizeDownBackward", download(b, dSmaller)}};
        });
    }

    // The GPT's ops: embeddings (gather, scatter-add), layer norm and causal attention (with
    // dropout, which both backends draw from the same counter-based stream).
    void transformer_data() { addDtypeRows(); }
    void transformer() {
        QFETCH(int, dtype);
        const DType dt = static_cast<DType>(dtype);
        const int64_t n = 3, t = 17, heads = 4, hd = 8, width = heads * hd, vocab = 13;
        Tensor hids = Tensor::host({n, t}, DType::F32);
        for (int64_t i = 0; i < hids.numel(); ++i)
            hids.data<float>()[i] = static_cast<float>((i * 5) % vocab);
        const Tensor htable = rnd({vocab, width}, 81), hpos = rnd({t + 3, width}, 82),
                     hx = rnd({n, t, width}, 83, -2.0f, 2.0f), hdy = rnd({n, t, width}, 84),
                     hgamma = rnd({width}, 85, 0.5f, 1.5f), hbeta = rnd({width}, 86),
                     hqkv = rnd({n, t, 3 * width}, 87, -2.0f, 2.0f);
        AttentionDesc a;
        a.n = n, a.t = t, a.heads = heads, a.headDim = hd, a.dropout = 0.2f, a.seed = 99;
        compareRuns("transformer", dt, [&](Backend& b) {
            Tensor ids = upload(b, hids, DType::F32), table = upload(b, htable, DType::F32);
            Tensor emb = b.empty({n * t, width}, dt), dtable = b.empty(table.shape(), DType::F32);
            b.fill(dtable, 0.0f);
            b.embeddingForward(ids, table, emb);
            Tensor dy = upload(b, hdy, dt), dyRows = dy.view({n * t, width});
            b.embeddingBackward(ids, dyRows, dtable);
            Tensor pos = upload(b, hpos, DType::F32), x = upload(b, hx, dt);
            Tensor placed = b.empty(x.shape(), dt), dpos = b.empty(pos.shape(), DType::F32);
            b.fill(dpos, 0.0f);
            b.positionEmbeddingForward(x, pos, placed);
            b.positionEmbeddingBackward(dy, dpos);
            Tensor gamma = upload(b, hgamma, DType::F32), beta = upload(b, hbeta, DType::F32);
            Tensor xr = x.view({n * t, width}), ln = b.empty({n * t, width}, dt);
            Tensor mean = b.empty({n * t}, DType::F32), var = b.empty({n * t}, DType::F32);
            Tensor dln = b.empty({n * t, width}, dt), dgamma = b.empty({width}, DType::F32),
                   dbeta = b.empty({width}, DType::F32);
            b.fill(dgamma, 0.0f);
            b.fill(dbeta, 0.0f);
            b.layerNormForward(xr, gamma, beta, 1e-5f, ln, mean, var);
            b.layerNormBackward(xr, dyRows, gamma, mean, var, 1e-5f, dln, dgamma, dbeta);
            Tensor qkv = upload(b, hqkv, dt), att = b.empty({n, t, width}, dt);
            Tensor probs = b.empty({a.probsCount()}, DType::F32), dqkv = b.empty(qkv.shape(), dt);
            b.attentionForward(a, qkv, att, probs);
            b.attentionBackward(a, qkv, probs, dy, dqkv);
            return Results{{"=embedding", download(b, emb)},
                           {"~embeddingGrad", download(b, dtable)},
                           {"positions", download(b, placed)},
                           {"~positionGrad", download(b, dpos)},
                           {"layerNorm", download(b, ln)},
                           {"~layerNormMean", download(b, mean)},
                           {"~layerNormVar", download(b, var)},
                           {"layerNormDx", download(b, dln)},
                           {"~layerNormDgamma", download(b, dgamma)},
                           {"~layerNormDbeta", download(b, dbeta)},
                           {"~attentionProbs", download(b, probs)},
                           {"attention", download(b, att)},
                           {"attentionDqkv", download(b, dqkv)}};
        });
    }

    // The same reductions at GPT-2's sizes, where a kernel that does not scale shows first:
    // a vocabulary of 50,257 and 8,192 rows (batch 8 at context 1,024). The ids repeat one
    // token a thousand times (a long run of one table row) and include ids that read no row.
    void gptScale_data() {
        QTest::addColumn<int>("dtype");
        QTest::newRow("f32") << static_cast<int>(DType::F32);
        QTest::newRow("bf16") << static_cast<int>(DType::BF16);
    }
    void gptScale() {
        QFETCH(int, dtype);
        const DType dt = static_cast<DType>(dtype);
        const int64_t rows = 8192, vocab = 50257, width = 768, tableWidth = 64;
        Tensor hids = Tensor::host({rows}, DType::F32);
        Tensor hlabels = Tensor::host({rows}, DType::F32);
        for (int64_t i = 0; i < rows; ++i) {
            const int64_t token = i % 8 == 0 ? 198 : (i * 7919) % vocab;
            hids.data<float>()[i] = i % 1000 == 999 ? -1.0f : static_cast<float>(token);
            hlabels.data<float>()[i] = static_cast<float>((i * 104729) % vocab);
        }
        const Tensor hdy = rnd({rows, tableWidth}, 91), hx = rnd({rows, width}, 92, -2.0f, 2.0f),
                     hdln = rnd({rows, width}, 93), hgamma = rnd({width}, 94, 0.5f, 1.5f),
                     hbeta = rnd({width}, 95), hlogits = rnd({rows, vocab}, 96, -4.0f, 4.0f);
        compareRuns("gptScale", dt, [&](Backend& b) {
            Tensor ids = upload(b, hids, DType::F32), dy = upload(b, hdy, dt);
            Tensor dtable = b.empty({vocab, tableWidth}, DType::F32);
            b.fill(dtable, 0.0f);
            b.embeddingBackward(ids, dy, dtable);
            Tensor x = upload(b, hx, dt), dln = upload(b, hdln, dt);
            Tensor gamma = upload(b, hgamma, DType::F32), beta = upload(b, hbeta, DType::F32);
            Tensor y = b.empty(x.shape(), dt), dx = b.empty(x.shape(), dt);
            Tensor mean = b.empty({rows}, DType::F32), var = b.empty({rows}, DType::F32);
            Tensor dgamma = b.empty({width}, DType::F32), dbeta = b.empty({width}, DType::F32);
            b.fill(dgamma, 0.0f);
            b.fill(dbeta, 0.0f);
            b.layerNormForward(x, gamma, beta, 1e-5f, y, mean, var);
            b.layerNormBackward(x, dln, gamma, mean, var, 1e-5f, dx, dgamma, dbeta);
            Tensor logits = upload(b, hlogits, dt), labels = upload(b, hlabels, DType::I32);
            Tensor lossSum = uploadValues(b, {0.0f, 0.0f}), scale = uploadValues(b, {256.0f});
            Tensor dlogits = b.empty(logits.shape(), dt);
            b.softmaxCrossEntropy(logits, labels, 0.1f, lossSum, &dlogits, &scale, 1.0f);
            return Results{
                {"~embeddingGrad", download(b, dtable)},   {"layerNormDx", download(b, dx)},
                {"~layerNormDgamma", download(b, dgamma)}, {"~layerNormDbeta", download(b, dbeta)},
                {"~lossSum", download(b, lossSum)},        {"dlogits", download(b, dlogits)}};
        });
    }

    void loss_data() { addDtypeRows(); }
    void loss() {
        QFETCH(int, dtype);
        const DType dt = static_cast<DType>(dtype);
        const int64_t n = 33, classes = 10;
        const Tensor hl = rnd({n, classes}, 61, -4.0f, 4.0f);
        Tensor hy = Tensor::host({n}, DType::F32);
        for (int64_t i = 0; i < n; ++i)
            hy.data<float>()[i] = static_cast<float>((i * 7) % classes);
        compareRuns("softmaxCrossEntropy", dt, [&](Backend& b) {
            Tensor logits = upload(b, hl, dt), labels = upload(b, hy, DType::I32);
            Tensor lossSum = uploadValues(b, {0.5f, 2.0f}), scale = uploadValues(b, {1024.0f});
            Tensor dl = b.empty(logits.shape(), dt);
            b.softmaxCrossEntropy(logits, labels, 0.1f, lossSum, &dl, &scale, 2.0f);
            b.softmaxCrossEntropy(logits, labels, 0.0f, lossSum, nullptr, nullptr, 1.0f);
            return Results{{"~lossSum", download(b, lossSum)}, {"dlogits", download(b, dl)}};
        });
    }

    // A segmentation's per-pixel loss: VOC's 21 classes, every seventh pixel ignored (255).
    void pixelLoss_data() { addDtypeRows(); }
    void pixelLoss() {
        QFETCH(int, dtype);
        const DType dt = static_cast<DType>(dtype);
        const Shape shape{2, 21, 6, 5};
        const Tensor hl = rnd(shape, 67, -4.0f, 4.0f);
        Tensor hy = Tensor::host({2, 6, 5}, DType::F32);
        int64_t counted = 0;
        for (int64_t i = 0; i < hy.numel(); ++i) {
            const bool ignored = i % 7 == 3;
            hy.data<float>()[i] = ignored ? 255.0f : static_cast<float>((i * 5) % 21);
            counted += ignored ? 0 : 1;
        }
        compareRuns("pixelCrossEntropy", dt, [&](Backend& b) {
            Tensor logits = upload(b, hl, dt), labels = upload(b, hy, DType::I32);
            Tensor lossSum = uploadValues(b, {0.5f, 2.0f}), scale = uploadValues(b, {1024.0f});
            Tensor dl = b.empty(shape, dt);
            b.pixelCrossEntropy(logits, labels, 255, counted, lossSum, &dl, &scale, 2.0f);
            b.pixelCrossEntropy(logits, labels, 255, counted, lossSum, nullptr, nullptr, 1.0f);
            return Results{{"~lossSum", download(b, lossSum)}, {"dlogits", download(b, dl)}};
        });
    }

    void lossScaling() {
        compareRuns("mixedPrecision", DType::F32, [&](Backend& b) {
            Tensor ok32 = upload(b, rnd({1000}, 71), DType::F32);
            Tensor bad16 = upload(b, rnd({1000}, 72), DType::F16);
            b.fill(bad16, 70000.0f); // above the f16 maximum: inf
            Tensor clean = uploadValues(b, {0.0f}), dirty = uploadValues(b, {0.0f});
            b.checkFinite({&ok32}, clean);
            b.checkFinite({&ok32, &bad16}, dirty);
            Tensor state = uploadValues(b, {65536.0f, 0.0f});
            Results r{{"=foundInfClean", download(b, clean)},
                      {"=foundInfDirty", download(b, dirty)}};
            // Interval 2: clean, clean (grow), dirty (back off), clean.
            for (Tensor* flag : {&clean, &clean, &dirty, &clean}) {
                b.updateLossScale(state, *flag, 2.0f, 0.5f, 2);
                r.emplace_back("=scaleState", download(b, state));
            }
            return r;
        });
    }

    void optimizers() {
        const Tensor hp = rnd({1000}, 81), hg = rnd({1000}, 82, -500.0f, 500.0f);
        compareRuns("optimizer", DType::F32, [&](Backend& b) {
            Tensor scale = uploadValues(b, {256.0f, 0.0f});
            Tensor noInf = uploadValues(b, {0.0f}), inf = uploadValues(b, {1.0f});
            Tensor g = upload(b, hg, DType::F32);
            Results r;
            for (bool nesterov : {false, true}) {
                Tensor p = upload(b, hp, DType::F32), buf = b.empty(p.shape(), DType::F32);
                b.fill(buf, 0.0f);
                SgdParams sp;
                sp.lr = 0.1f, sp.momentum = 0.9f, sp.weightDecay = 1e-4f, sp.nesterov = nesterov;
                for (int step = 0; step < 3; ++step)
                    b.sgdStep(p, g, &buf, sp, &scale, step == 1 ? &inf : &noInf);
                r.emplace_back(nesterov ? "sgdNesterov" : "sgdMomentum", download(b, p));
            }
            Tensor p = upload(b, hp, DType::F32), m = b.empty(p.shape(), DType::F32),
                   v = b.empty(p.shape(), DType::F32);
            b.fill(m, 0.0f);
            b.fill(v, 0.0f);
            // Step 2 is skipped: step 3's bias correction counts t = 3 - 1 on both devices.
            Tensor skipped = uploadValues(b, {0.0f});
            AdamWParams ap;
            for (int step = 1; step <= 3; ++step) {
                ap.step = step;
                b.adamwStep(p, g, m, v, ap, &scale, step == 2 ? &inf : nullptr, &skipped);
                if (step == 2)
                    b.add(skipped, inf, skipped);
            }
            r.emplace_back("adamwParam", download(b, p));
            r.emplace_back("adamwExpAvg", download(b, m));
            r.emplace_back("adamwExpAvgSq", download(b, v));
            return r;
        });
    }

    // Gradient clipping by global norm: the same norm, stats and clipped gradients on both
    // devices, over several tensors, with and without a GradScaler's scale, and a step whose
    // norm is not finite left alone.
    void gradientClipping() {
        const Tensor ha = rnd({1000}, 91, -3.0f, 3.0f), hb = rnd({37}, 92, -3.0f, 3.0f);
        compareRuns("clipGradNorm", DType::F32, [&](Backend& b) {
            Tensor a = upload(b, ha, DType::F32), g2 = upload(b, hb, DType::F32);
            Tensor stats = uploadValues(b, {0.0f, 0.0f});
            Tensor scale = uploadValues(b, {4.0f, 0.0f});
            Results r;
            b.clipGradNorm({&a, &g2}, 5.0f, nullptr, stats); // clips
            r.emplace_back("~clippedA", download(b, a));
            r.emplace_back("~clippedB", download(b, g2));
            b.clipGradNorm({&a, &g2}, 5.0f, &scale, stats); // unscaled norm 5/4: left alone
            r.emplace_back("~unchangedA", download(b, a));
            Tensor bad = uploadValues(b, {1.0f, INFINITY});
            b.clipGradNorm({&bad}, 0.5f, nullptr, stats); // not finite: left alone
            r.emplace_back("=notFinite", download(b, bad));
            r.emplace_back("~stats", download(b, stats));
            return r;
        });
    }

    // NCCL on one rank, without MPI: the library is opened on demand, a communicator of one
    // joins on the backend's stream, and its all-reduce (the mean of one) and broadcast leave
    // the values as they were. The smallest proof that a data-parallel GPU job can connect.
    void ncclOnOneRank() {
        DeviceCollectivesId id;
        try {
            id = newDeviceCollectivesId();
        } catch (const DistributedError& e) {
            QSKIP(qPrintable(QString("NCCL cannot be used here: %1").arg(e.what())));
        }
        const std::unique_ptr<DeviceCollectives> nccl =
            createDeviceCollectives(*m_gpu, id, 0, 1, std::chrono::seconds(30));
        std::printf("%s\n", nccl->description().c_str());
        const Tensor host = rnd({4097}, 91);
        Tensor t = upload(*m_gpu, host, DType::F32);
        nccl->allReduceAverage(t);
        nccl->broadcast(t, 0);
        nccl->join();
        TB_EXPECT_CLOSE("nccl one-rank all-reduce", host, download(*m_gpu, t), exact());
    }
};

QTEST_GUILESS_MAIN(TestGpuOps)
#include "tst_gpu_ops.moc"

// The GradScaler state machine, and fp16 gradients that underflow without loss scaling and
// survive with it.
#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "optim/gradscaler.h"
#include "optim/optimizer.h"
#include "support/testdata.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace tb;

class TestGradScaler : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { m_b = createCpuBackend(1); }

    void growsAfterIntervalAndBacksOffOnInf() {
        GradScaler s(*m_b, {65536.0f, 2.0f, 0.5f, 3});
        Param p;
        p.value = m_b->empty({2}, DType::F32);
        p.grad = m_b->empty({2}, DType::F32);
        m_b->fill(p.value, 1.0f);
        m_b->fill(p.grad, 1.0f);
        QCOMPARE(s.scale(), 65536.0f);
        for (int i = 0; i < 3; ++i) {
            s.checkGradients({&p});
            QVERIFY(!s.lastStepSkipped());
            s.update();
        }
        QCOMPARE(s.scale(), 131072.0f); // x2 after growth_interval clean steps
        p.grad.data<float>()[1] = std::numeric_limits<float>::infinity();
        s.checkGradients({&p});
        QVERIFY(s.lastStepSkipped());
        s.update();
        QCOMPARE(s.scale(), 65536.0f); // x0.5 on inf
        p.grad.data<float>()[1] = std::numeric_limits<float>::quiet_NaN();
        s.checkGradients({&p});
        QVERIFY(s.lastStepSkipped());
    }

    // As torch.amp.GradScaler: a scale whose growth would overflow stays where it is.
    void neverGrowsIntoInfinity() {
        GradScaler s(*m_b, {65536.0f, 2.0f, 0.5f, 1});
        Param p;
        p.value = m_b->empty({1}, DType::F32);
        p.grad = m_b->empty({1}, DType::F32);
        m_b->fill(p.grad, 1.0f);
        const float top = std::ldexp(1.0f, 127);
        s.setState(top, 0.0f);
        s.checkGradients({&p});
        s.update();
        QCOMPARE(s.scale(), top);
    }

    void skippedStepLeavesWeightsAlone() {
        GradScaler s(*m_b, {});
        Param p;
        p.value = m_b->empty({1}, DType::F32);
        p.grad = m_b->empty({1}, DType::F32);
        m_b->fill(p.value, 1.0f);
        m_b->fill(p.grad, std::numeric_limits<float>::infinity());
        Optimizer opt(*m_b, {&p}, {"sgd", 0.9f});
        s.checkGradients({&p});
        opt.step(0.1f, &s.state(), &s.foundInf());
        QCOMPARE(p.value.data<float>()[0], 1.0f);
        // A clean step is unscaled: grad 65536 at scale 65536 acts as 1.
        m_b->fill(p.grad, 65536.0f);
        s.checkGradients({&p});
        opt.step(0.1f, &s.state(), &s.foundInf());
        QVERIFY(std::fabs(p.value.data<float>()[0] - 0.9f) < 1e-6f);
    }

    // A loss gradient of 1e-8 per logit is below fp16's smallest subnormal (6e-8): stored in
    // fp16 it flushes to zero and no weight learns; scaled by 65536 it survives, and after
    // unscaling the f32 weight gradient matches the fp32 run.
    void fp16GradientsUnderflowWithoutScaling() {
        const auto spec = modelSpec("mlp", {8}, 4, {{"hidden", "16"}});
        Tensor x = test::randomTensor({4, 8}, 3);
        Tensor labels = Tensor::host({4}, DType::I32);
        for (int i = 0; i < 4; ++i)
            labels.data<int32_t>()[i] = i;
        const auto lastLayerGradNorm = [&](DType act, float scale) {
            Graph g(spec, *m_b, act, 1);
            const Tensor& logits = g.forward(x, true);
            Tensor sums = m_b->empty({2}, DType::F32);
            m_b->fill(sums, 0.0f);
            Tensor scaleT = m_b->empty({1}, DType::F32);
            m_b->fill(scaleT, scale);
            Tensor& d = g.logitsGrad();
            // divisor 1e7: a tiny loss, like a late-training one.
            m_b->softmaxCrossEntropy(logits, labels, 0.0f, sums, &d, &scaleT, 1e7f);
            g.zeroGrad();
            g.backward(d);
            double norm = 0.0;
            for (Param* p : g.params())
                for (int64_t i = 0; i < p->grad.numel(); ++i)
                    norm += std::fabs(p->grad.data<float>()[i] / scale);
            return norm;
        };
        const double reference = lastLayerGradNorm(DType::F32, 1.0f);
        const double unscaled = lastLayerGradNorm(DType::F16, 1.0f);
        const double scaled = lastLayerGradNorm(DType::F16, 65536.0f);
        qInfo("grad L1: fp32 %.3e, fp16 unscaled %.3e, fp16 scaled %.3e", reference, unscaled,
              scaled);
        QVERIFY(reference > 0.0);
        QCOMPARE(unscaled, 0.0);
        QVERIFY(std::fabs(scaled - reference) / reference < 0.02);
    }

    void bf16KeepsTinyGradients() {
        // bf16 has float's exponent range: the same tiny gradient survives without scaling.
        const auto spec = modelSpec("mlp", {8}, 4, {{"hidden", "16"}});
        Graph g(spec, *m_b, DType::BF16, 1);
        Tensor x = test::randomTensor({4, 8}, 3);
        Tensor labels = Tensor::host({4}, DType::I32);
        for (int i = 0; i < 4; ++i)
            labels.data<int32_t>()[i] = i;
        const Tensor& logits = g.forward(x, true);
        Tensor sums = m_b->empty({2}, DType::F32);
        m_b->fill(sums, 0.0f);
        Tensor& d = g.logitsGrad();
        m_b->softmaxCrossEntropy(logits, labels, 0.0f, sums, &d, nullptr, 1e7f);
        g.zeroGrad();
        g.backward(d);
        double norm = 0.0;
        for (Param* p : g.params())
            for (int64_t i = 0; i < p->grad.numel(); ++i)
                norm += std::fabs(p->grad.data<float>()[i]);
        QVERIFY(norm > 0.0);
    }

private:
    std::unique_ptr<Backend> m_b;
};

QTEST_GUILESS_MAIN(TestGradScaler)
#include "tst_gradscaler.moc"

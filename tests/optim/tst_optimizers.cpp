// SGD and AdamW updates against values computed by hand from PyTorch's formulas.
#include "core/errors.h"
#include "nn/layer.h"
#include "optim/optimizer.h"

#include <QtTest>

#include <cmath>

using namespace tb;

namespace {

struct OneParam {
    Param p;
    explicit OneParam(Backend& b, float w, float g) {
        p.name = "w";
        p.value = b.empty({1}, DType::F32);
        p.grad = b.empty({1}, DType::F32);
        b.fill(p.value, w);
        b.fill(p.grad, g);
    }
    float w() const { return p.value.data<float>()[0]; }
};

} // namespace

class TestOptimizers : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { m_b = createCpuBackend(1); }

    void sgdPlain() {
        OneParam x(*m_b, 1.0f, 0.5f);
        Optimizer opt(*m_b, {&x.p}, {"sgd", 0.0f, false, 0.0f});
        opt.step(0.1f, nullptr, nullptr);
        QCOMPARE(x.w(), 1.0f - 0.1f * 0.5f);
    }

    void sgdMomentumAndWeightDecay() {
        // g' = g + wd * w; buf = m * buf + g'; w -= lr * buf.
        OneParam x(*m_b, 1.0f, 0.5f);
        Optimizer opt(*m_b, {&x.p}, {"sgd", 0.9f, false, 0.1f});
        opt.step(0.1f, nullptr, nullptr); // g' = 0.6, buf = 0.6, w = 0.94
        QVERIFY(std::fabs(x.w() - 0.94f) < 1e-6f);
        opt.step(0.1f, nullptr, nullptr); // g' = 0.594, buf = 1.134, w = 0.8266
        QVERIFY(std::fabs(x.w() - 0.8266f) < 1e-6f);
    }

    void sgdNesterov() {
        // buf = 0.5; update = g + m * buf = 0.95.
        OneParam x(*m_b, 1.0f, 0.5f);
        Optimizer opt(*m_b, {&x.p}, {"sgd", 0.9f, true, 0.0f});
        opt.step(0.1f, nullptr, nullptr);
        QVERIFY(std::fabs(x.w() - (1.0f - 0.095f)) < 1e-6f);
    }

    // Ultralytics' warm-up: with 3 of 4 warm-up steps ahead (the rate at 1/4 of lr), a bias
    // learns at lr/4 + 0.1 * 3/4 and SGD's momentum is 0.937 - (0.937 - 0.8) * 3/4; a weight
    // at the schedule's rate. With nothing ahead both are the configured values.
    void ultralyticsWarmup() {
        OneParam weight(*m_b, 1.0f, 0.5f), bias(*m_b, 1.0f, 0.5f);
        bias.p.name = "bias";
        OptimizerConfig c{"sgd", 0.937f, false, 0.0f};
        c.warmupBiasLr = 0.1f;
        c.warmupMomentum = 0.8f;
        Optimizer opt(*m_b, std::vector<Param*>{&weight.p, &bias.p}, c);
        const float lr = 0.01f / 4, left = 0.75f;
        QCOMPARE(opt.biasLr(lr, left), lr + 0.1f * 0.75f);
        QCOMPARE(opt.momentum(left), 0.937f - (0.937f - 0.8f) * 0.75f);
        QCOMPARE(opt.biasLr(lr, 0.0f), lr);
        QCOMPARE(opt.momentum(0.0f), 0.937f);
        opt.step(lr, nullptr, nullptr, left); // the first step: buf = g
        QVERIFY(std::fabs(weight.w() - (1.0f - lr * 0.5f)) < 1e-7f);
        QVERIFY(std::fabs(bias.w() - (1.0f - (lr + 0.075f) * 0.5f)) < 1e-7f);
        // The second: buf = m(left) * g + g, each parameter at its rate.
        const float m = opt.momentum(0.5f), w1 = weight.w(), b1 = bias.w();
        opt.step(2 * lr, nullptr, nullptr, 0.5f);
        QVERIFY(std::fabs(weight.w() - (w1 - 2 * lr * (m * 0.5f + 0.5f))) < 1e-6f);
        QVERIFY(std::fabs(bias.w() - (b1 - opt.biasLr(2 * lr, 0.5f) * (m * 0.5f + 0.5f))) < 1e-6f);
        // Without the keys, a bias warms up as a weight does.
        OneParam plain(*m_b, 1.0f, 0.5f);
        plain.p.name = "bias";
        Optimizer off(*m_b, {&plain.p}, {"sgd", 0.0f, false, 0.0f});
        off.step(lr, nullptr, nullptr, left);
        QCOMPARE(plain.w(), 1.0f - lr * 0.5f);
    }

    void adamw() {
        // Step 1: m = 0.1 g, v = 0.001 g^2; m_hat = g, v_hat = g^2; w = w(1 - lr wd) - lr.
        OneParam x(*m_b, 1.0f, 0.5f);
        OptimizerConfig c{"adamw", 0.0f, false, 0.01f, 0.9f, 0.999f, 1e-8f};
        Optimizer opt(*m_b, {&x.p}, c);
        opt.step(0.1f, nullptr, nullptr);
        const double w1 = 1.0 * (1 - 0.1 * 0.01) - 0.1 * 0.5 / (0.5 + 1e-8);
        QVERIFY(std::fabs(x.w() - w1) < 1e-6);
        opt.step(0.1f, nullptr, nullptr);
        const double m = 0.9 * 0.05 + 0.1 * 0.5, v = 0.999 * 0.00025 + 0.001 * 0.25;
        const double mhat = m / (1 - 0.81), vhat = v / (1 - 0.999 * 0.999);
        const double w2 = w1 * (1 - 0.1 * 0.01) - 0.1 * mhat / (std::sqrt(vhat) + 1e-8);
        QVERIFY(std::fabs(x.w() - w2) < 1e-6);
    }

    // PyTorch's GradScaler does not call optimizer.step() when it finds inf/NaN, so AdamW's step
    // count (its bias correction) advances on applied steps only. Our skip happens on the device
    // inside step(): the weights must follow exactly those of an optimizer that is simply not
    // stepped on the skipped steps, including the first real update after early skips.
    void adamwSkippedStepsDoNotCountAsSteps_data() {
        QTest::addColumn<QString>("skips"); // one character per step: x skipped, . applied
        QTest::newRow("early skips, as from a too-high initial scale") << "xxx.....";
        QTest::newRow("skips between clean steps") << ".x..xx.x.";
        QTest::newRow("no skip") << "......";
    }
    void adamwSkippedStepsDoNotCountAsSteps() {
        QFETCH(QString, skips);
        const OptimizerConfig c{"adamw", 0.0f, false, 0.01f, 0.9f, 0.999f, 1e-8f};
        OneParam scaled(*m_b, 1.0f, 0.0f), plain(*m_b, 1.0f, 0.0f);
        Optimizer withScaler(*m_b, {&scaled.p}, c), withoutSkips(*m_b, {&plain.p}, c);
        Tensor scale = m_b->empty({1}, DType::F32), foundInf = m_b->empty({1}, DType::F32);
        m_b->fill(scale, 1024.0f);
        int64_t applied = 0;
        for (int i = 0; i < skips.size(); ++i) {
            const bool skip = skips[i] == 'x';
            const float g = 0.25f + 0.1f * static_cast<float>(i % 3); // varies, so t matters
            m_b->fill(scaled.p.grad, skip ? INFINITY : g * 1024.0f);
            m_b->fill(foundInf, skip ? 1.0f : 0.0f);
            withScaler.step(0.05f, &scale, &foundInf);
            if (!skip) {
                m_b->fill(plain.p.grad, g);
                withoutSkips.step(0.05f, nullptr, nullptr);
                ++applied;
            }
            QCOMPARE(scaled.w(), plain.w());
        }
        QCOMPARE(withScaler.steps(), applied);
        QCOMPARE(withoutSkips.steps(), applied);
        // A checkpoint stores the applied count; restored, the next update is the same again.
        withScaler.setSteps(withScaler.steps());
        m_b->fill(scaled.p.grad, 1024.0f * 0.3f);
        m_b->fill(foundInf, 0.0f);
        m_b->fill(plain.p.grad, 0.3f);
        withScaler.step(0.05f, &scale, &foundInf);
        withoutSkips.step(0.05f, nullptr, nullptr);
        QCOMPARE(scaled.w(), plain.w());
    }

    void biasesAreNotDecayed() {
        OneParam x(*m_b, 1.0f, 0.0f);
        x.p.decay = false;
        Optimizer opt(*m_b, {&x.p}, {"sgd", 0.0f, false, 0.5f});
        opt.step(0.1f, nullptr, nullptr);
        QCOMPARE(x.w(), 1.0f);
    }

    void rejectsUnknownOptimizer() {
        OneParam x(*m_b, 1.0f, 0.0f);
        const auto make = [&] { Optimizer opt(*m_b, {&x.p}, OptimizerConfig{"lbfgs"}); };
        QVERIFY_THROWS_EXCEPTION(ConfigError, make());
    }

private:
    std::unique_ptr<Backend> m_b;
};

QTEST_GUILESS_MAIN(TestOptimizers)
#include "tst_optimizers.moc"

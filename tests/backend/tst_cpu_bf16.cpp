// bf16-mixed on the CPU against f32: the zoo's logits and parameter gradients, and the loss
// curve of a short run. Where the CPU has bf16 arithmetic oneDNN computes convolutions and
// matmuls in bf16 with f32 accumulation; elsewhere every op widens to f32. Both must stay
// within bf16's error of f32.
//
// Tolerances. bf16 keeps 8 significant bits (unit roundoff 2^-9, 0.2%). Forward, the rounded
// inputs, weights and outputs of ~20 layers give logits within about 1% normwise (measured
// below 0.6%), so logits get 2%. Backward is far less forgiving: batch norm's backward
// subtracts the batch means of dy and dy*xhat, which cancel, so the rounding error of the
// bf16 dy grows relative to the result at every block, and the first layers' gradients of a
// deep net are tens of percent off. That is bf16 itself, not this code: PyTorch 1.13's
// torch.autocast("cpu", bfloat16) on the same models at batch 8, against its own f32, gives
// worst per-parameter gradient errors of 5.5% (mlp), 8% (lenet5), 11% (fmnist-cnn) and 41%
// (resnet20); ours measured 5%, 22%, 12% and 47% (native; 4%, 13%, 10%, 43% emulated). The
// limits are about 1.5x the larger of the two; a wrong kernel or layout is off by ~100%. The
// classifier's gradient, before any batch norm, is held to 2% like the logits.
#include "backend/backend.h"
#include "backend/cpu/cpuisa.h"
#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "support/runconfigs.h"
#include "support/runlog.h"
#include "support/testdata.h"
#include "train/trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace tb;

namespace {

std::vector<float> toF32(Backend& b, const Tensor& t) {
    Tensor wide = Tensor::host(t.shape(), DType::F32);
    if (t.dtype() == DType::F32)
        b.copy(t, wide);
    else
        b.cast(t, wide);
    return {wide.data<float>(), wide.data<float>() + wide.numel()};
}

// ||a - ref|| / ||ref||
double relativeError(const std::vector<float>& a, const std::vector<float>& ref) {
    double diff = 0.0, norm = 0.0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        diff += (double(a[i]) - ref[i]) * (double(a[i]) - ref[i]);
        norm += double(ref[i]) * ref[i];
    }
    return std::sqrt(diff / std::max(norm, 1e-30));
}

RunConfig shortRun(const QString& dir, const char* precision) {
    RunConfig c = test::shapesRunConfig(dir.toStdString());
    c.set("data.synthetic_samples", "256");
    c.set("max_epochs", "4");
    c.set("lr", "0.05");
    c.set("log_every_n_steps", "2");
    c.set("seed", "7");
    c.set("precision", precision);
    return c;
}

} // namespace

class TestCpuBf16 : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        m_backend = createCpuBackend(2);
        // The channels_last ctest entry: the models' activations in NHWC, as on AMX for bf16.
        if (qgetenv("TB_TEST_MEMORY_FORMAT") == "channels_last")
            m_backend->setMemoryFormat(MemoryFormat::ChannelsLast);
        const auto s = cpuLowPrecisionSupport();
        qInfo("bf16 on this CPU: %s (oneDNN ISA %s)",
              s.bf16Native ? "native bf16 convolutions and matmuls" : "emulated in f32",
              s.isa.c_str());
    }

    void zooModelMatchesF32_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<double>("gradientLimit");
        QTest::newRow("mlp") << "mlp" << 0.10;
        QTest::newRow("lenet5") << "lenet5" << 0.35;
        QTest::newRow("fmnist-cnn") << "fmnist-cnn" << 0.20;
        QTest::newRow("resnet20") << "resnet20" << 0.70;
    }
    void zooModelMatchesF32() {
        QFETCH(QString, model);
        QFETCH(double, gradientLimit);
        const Shape input = zooInputShape(model.toStdString(), {1, 28, 28});
        const auto spec = modelSpec(model.toStdString(), input, 10);
        Graph f32(spec, *m_backend, DType::F32, 3), bf16(spec, *m_backend, DType::BF16, 3);
        const Tensor x = test::randomTensor(input.withBatch(8), 11);
        const auto logits32 = toF32(*m_backend, f32.forward(x, true));
        const auto logits16 = toF32(*m_backend, bf16.forward(x, true));
        const double logitError = relativeError(logits16, logits32);
        QVERIFY2(logitError < 0.02, qPrintable(QString("logits off by %1").arg(logitError)));

        const Tensor dlogits = test::randomTensor({8, 10}, 12);
        m_backend->copy(dlogits, f32.logitsGrad());
        m_backend->cast(dlogits, bf16.logitsGrad());
        f32.zeroGrad();
        bf16.zeroGrad();
        f32.backward(f32.logitsGrad());
        bf16.backward(bf16.logitsGrad());
        const auto p32 = f32.params(), p16 = bf16.params();
        double worst = 0.0;
        for (std::size_t i = 0; i < p32.size(); ++i) {
            QCOMPARE(p16[i]->grad.dtype(), DType::F32); // master gradients stay f32
            worst = std::max(worst, relativeError(toF32(*m_backend, p16[i]->grad),
                                                  toF32(*m_backend, p32[i]->grad)));
        }
        QVERIFY2(worst < gradientLimit, qPrintable(QString("a gradient is off by %1").arg(worst)));
        const double classifier =
            relativeError(toF32(*m_backend, p16.back()->grad), toF32(*m_backend, p32.back()->grad));
        QVERIFY2(classifier < 0.02,
                 qPrintable(QString("the classifier's gradient is off by %1").arg(classifier)));
        qInfo("%s: logits %.4f, worst gradient %.4f relative error", qPrintable(model), logitError,
              worst);
    }

    // The same short run in f32 and bf16-mixed: bf16 follows f32's loss curve. Rounding moves
    // each step a little, and the moves compound, so logged losses drift apart by a few percent
    // (measured: mean 1-2%, worst 5-7%); a broken bf16 path would not learn at all.
    void shortRunFollowsF32() {
        QTemporaryDir d32, d16;
        test::RunLog log32, log16;
        QVERIFY(Trainer(shortRun(d32.path(), "32"), log32).run().error.empty());
        QVERIFY(Trainer(shortRun(d16.path(), "bf16-mixed"), log16).run().error.empty());
        const auto l32 = log32.losses(), l16 = log16.losses();
        QCOMPARE(l16.size(), l32.size());
        QVERIFY(l32.back() < 0.8 * l32.front()); // it learns, so the curves have a shape
        double worst = 0.0, mean = 0.0;
        for (std::size_t i = 0; i < l32.size(); ++i) {
            const double gap = std::fabs(l16[i] - l32[i]) / l32[i];
            worst = std::max(worst, gap);
            mean += gap / static_cast<double>(l32.size());
        }
        QVERIFY2(mean < 0.05,
                 qPrintable(QString("logged losses are off by %1 on average").arg(mean)));
        QVERIFY2(worst < 0.15, qPrintable(QString("a logged loss is off by %1").arg(worst)));
        qInfo("short run: %zu logged losses, %.4f mean and %.4f worst relative gap to f32",
              l32.size(), mean, worst);
    }

private:
    std::unique_ptr<Backend> m_backend;
};

QTEST_GUILESS_MAIN(TestCpuBf16)
#include "tst_cpu_bf16.moc"

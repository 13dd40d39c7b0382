// Every zoo model's forward and backward on the GPU against the CPU backend (same weights, same
// batch), and a short 16-mixed run whose loss curve stays close to the fp32 one.
#include "gpucompare.h"

#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "support/testdata.h"
#include "train/trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace tb;

namespace {

class LossCollector final : public EventSink {
public:
    void onEvent(const Event& e) override {
        if (const auto* s = std::get_if<StepEvent>(&e))
            losses.push_back(s->loss);
    }
    std::vector<double> losses;
};

} // namespace

class TestGpuModels : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        TB_REQUIRE_GPU(m_gpu);
        m_cpu = createCpuBackend(0);
    }

    void zooForwardBackward_data() {
        QTest::addColumn<QString>("model");
        for (const auto& m : modelZoo())
            QTest::newRow(m.name.c_str()) << QString::fromStdString(m.name);
    }
    void zooForwardBackward() {
        QFETCH(QString, model);
        const std::string name = model.toStdString();
        const Shape input = zooInputShape(name, {});
        // Dropout draws the same mask on both devices (shared counter-based generator).
        const auto spec = modelSpec(name, input, 10);
        Graph cpu(spec, *m_cpu, DType::F32, 3);
        Graph gpu(spec, *m_gpu, DType::F32, 3);
        const Tensor x = test::randomTensor(input.withBatch(8), 21);
        const Tensor xg = test::upload(*m_gpu, x, DType::F32);
        const Tensor& lc = cpu.forward(x, true);
        const Tensor& lg = gpu.forward(xg, true);
        TB_EXPECT_CLOSE(name + " logits", lc, test::download(*m_gpu, lg),
                        test::toleranceFor(DType::F32));
        const Tensor dl = test::randomTensor({8, 10}, 22);
        Tensor& dc = cpu.logitsGrad();
        m_cpu->copy(dl, dc);
        Tensor& dg = gpu.logitsGrad();
        m_gpu->copy(test::upload(*m_gpu, dl, DType::F32), dg);
        cpu.zeroGrad();
        gpu.zeroGrad();
        cpu.backward(dc);
        gpu.backward(dg);
        const auto pc = cpu.params(), pg = gpu.params();
        for (std::size_t i = 0; i < pc.size(); ++i)
            TB_EXPECT_CLOSE(name + " grad " + std::to_string(i), pc[i]->grad,
                            test::download(*m_gpu, pg[i]->grad), test::toleranceFor(DType::F32));
    }

    // fp16 activations with loss scaling follow the fp32 loss curve: over 60 steps the mean
    // loss of the last 20 stays within 5% (fp16's rounding moves single steps, not the trend).
    void mixedPrecisionLossCurveTracksFp32() {
        const auto curve = [](const std::string& precision) {
            QTemporaryDir dir;
            RunConfig c;
            c.set("dataset", "shapes");
            c.set("data.image_size", "32");
            c.set("data.synthetic_samples", "1920");
            c.set("model", "resnet20");
            c.set("batch_size", "32");
            c.set("max_steps", "60");
            c.set("log_every_n_steps", "1");
            c.set("device", "cuda:0");
            c.set("precision", precision);
            c.set("checkpoint_dir", dir.path().toStdString());
            LossCollector col;
            Trainer(c, col).run();
            return col.losses;
        };
        const auto fp32 = curve("32");
        const auto fp16 = curve("16-mixed");
        QCOMPARE(fp16.size(), fp32.size());
        double a = 0.0, b = 0.0;
        for (std::size_t i = fp32.size() - 20; i < fp32.size(); ++i) {
            a += fp32[i];
            b += fp16[i];
        }
        qInfo("mean loss of the last 20 steps: fp32 %.4f, 16-mixed %.4f", a / 20, b / 20);
        QVERIFY(std::fabs(a - b) / a < 0.05);
    }

private:
    std::unique_ptr<Backend> m_gpu, m_cpu;
};

QTEST_GUILESS_MAIN(TestGpuModels)
#include "tst_gpu_models.moc"

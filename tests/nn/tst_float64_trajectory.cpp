// fmnist-cnn and resnet20 against PyTorch in float64, from the same initial state on the same
// batches: every first-step gradient of a batch-norm parameter is at most twice as far from
// float64 as PyTorch's float32 one, and over 20 SGD steps (momentum 0.9) the loss curve stays
// as close to float64's as PyTorch's float32 curve does. That is with the direct convolution
// algorithm PyTorch's CPU uses, so that the batch norm's own sums are what is compared; with
// conv_algorithm=auto (Winograd's for the 3x3 convolutions with 32 or more channels, whose
// transforms round a few more times) the same holds within kWinogradFactor times PyTorch's.
// A pre-activation within float32 rounding of zero flips its ReLU in one float32 run and not
// in another (a few of resnet20's 2.3 million, on some machines' sums): the first step's
// gradients are therefore each compared with float64 on their own run's ReLU pattern, and the
// elements where that pattern differs from float64's must lie within rounding of zero. Over the
// steps after it, the curve, not the final weights: a flip moves a small tensor (a batch-norm
// bias) by a step that dwarfs rounding, while a drift from imprecise sums (the fault this
// guards against) shows in every step's loss.
// tests/torch/trajectory_reference.py trains the references.
#include "backend/cpu/cpubackend.h"
#include "backend/cpu/cpuisa.h"
#include "io/safetensors.h"
#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "optim/optimizer.h"
#include "support/layouttensors.h"
#include "support/testdata.h"
#include "support/torchreference.h"

#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb;

namespace {

constexpr int kSteps = 20;
constexpr float kLr = 0.05f;
// A PyTorch float32 error of zero (an exact result) still allows one float32 rounding.
constexpr double kRoundingFloor = 6e-8;
// A ReLU input float32 may put on the other side of zero than float64: this far from zero at
// most, relative to the root mean square of its layer's inputs.
constexpr double kTieMargin = 1e-4;
// Winograd's outputs lie 2 to 4x further from exact sums than direct ones (tst_cpu_winograd);
// the gradients behind them inherit that (measured: at most 2.9x PyTorch's float32 error).
constexpr double kWinogradFactor = 4.0;

Tensor hostCopy(Backend& b, const Tensor& t) {
    Tensor h = Tensor::host(t.shape(), t.dtype());
    b.copy(t, h);
    return h;
}

} // namespace

class TestFloat64Trajectory : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (const QString why = test::torchUnavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
    }

    void staysWithinFloat32Noise_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("batch");
        QTest::addColumn<bool>("winograd");
        QTest::newRow("fmnist-cnn") << "fmnist-cnn" << 32 << false;
        QTest::newRow("resnet20") << "resnet20" << 16 << false;
        QTest::newRow("fmnist-cnn, conv_algorithm=auto") << "fmnist-cnn" << 32 << true;
        QTest::newRow("resnet20, conv_algorithm=auto") << "resnet20" << 16 << true;
    }
    void staysWithinFloat32Noise() {
        QFETCH(QString, model);
        QFETCH(int, batch);
        QFETCH(bool, winograd);
        if (winograd && cpuLowPrecisionSupport().isa.rfind("avx512_core", 0) != 0)
            QSKIP("oneDNN has no Winograd convolutions below AVX-512: the direct rows cover this");
        QTemporaryDir dir;
        const QString path = dir.filePath("run.safetensors");
        std::vector<std::string> batchNormParams;
        train(model.toStdString(), batch, winograd, path.toStdString(), batchNormParams);
        const double factor = winograd ? kWinogradFactor : 2.0;
        const QJsonObject result = test::runTorchScript("trajectory_reference.py", {path});

        const QJsonObject ties = result["relu_ties"].toObject();
        for (const char* run : {"ours", "torch32"}) {
            const QJsonObject t = ties[run].toObject();
            qInfo("%s: %d ReLU inputs on the other side of zero than in float64, the farthest "
                  "%.3g of its layer's RMS from it",
                  run, t["count"].toInt(), t["margin"].toDouble());
            QVERIFY2(t["margin"].toDouble() <= kTieMargin, run);
        }
        const QJsonObject first = result["first_step"].toObject();
        for (const std::string& name : batchNormParams) {
            const QJsonObject e = first[QString::fromStdString(name)].toObject();
            QVERIFY2(!e.isEmpty(), name.c_str());
            const double ours = e["ours"].toDouble(), torch = e["torch32"].toDouble();
            qInfo("first-step gradient %-22s ours %.3g  PyTorch f32 %.3g", name.c_str(), ours,
                  torch);
            QVERIFY2(ours <= factor * torch + kRoundingFloor, name.c_str());
        }
        const QJsonObject loss = result["loss"].toObject();
        const double ours = loss["ours"].toDouble(), torch = loss["torch32"].toDouble();
        qInfo("loss over %d steps: ours within %.3g of float64, PyTorch float32 within %.3g",
              kSteps, ours, torch);
        QVERIFY2(ours <= factor * torch + kRoundingFloor,
                 qPrintable(QStringLiteral("%1 vs %2").arg(ours).arg(torch)));
    }

private:
    // Trains `model` for kSteps on random batches (its 3x3 convolutions by Winograd's
    // algorithm where oneDNN has it, with `winograd`) and writes the initial state, the batches,
    // the first step's ReLU outputs and gradients, each step's loss and the final state to `path`;
    // names the batch-norm parameters.
    void train(const std::string& model, int batch, bool winograd, const std::string& path,
               std::vector<std::string>& batchNormParams) {
        CpuBackend backend(2);
        backend.setConvAlgorithm(winograd ? ConvAlgorithm::Auto : ConvAlgorithm::Direct);
        const Shape input = zooInputShape(model, {1, 28, 28});
        Graph graph(modelSpec(model, input, 10), backend, DType::F32, 3);
        Optimizer optimizer(backend, graph.params(), OptimizerConfig{});
        std::vector<SafetensorsEntry> entries;
        std::string order;
        for (const NamedTensor& t : graph.stateDict()) {
            entries.push_back({"init." + t.name, hostCopy(backend, *t.tensor)});
            order += (order.empty() ? "" : ",") + t.name;
        }
        for (Layer* layer : graph.layers())
            if (layer->type() == "batchnorm2d")
                for (Param* p : layer->params())
                    batchNormParams.push_back(layer->name() + "." + p->name);
        Tensor loss = backend.empty({2}, DType::F32), lossHost = Tensor::host({2}, DType::F32);
        Tensor losses = Tensor::host({kSteps}, DType::F32);
        graph.zeroGrad();
        for (int step = 0; step < kSteps; ++step) {
            const Tensor x =
                test::randomTensor(input.withBatch(batch), 100 + static_cast<uint64_t>(step));
            Tensor y = Tensor::host({batch}, DType::I32);
            for (int i = 0; i < batch; ++i)
                y.data<int32_t>()[i] = (i * 7 + step) % 10;
            entries.push_back({"x." + std::to_string(step), x});
            entries.push_back({"y." + std::to_string(step), y});
            const Tensor& logits = graph.forward(x, true);
            if (step == 0) {
                int relus = 0;
                for (Layer* layer : graph.layers())
                    if (layer->type() == "relu")
                        entries.push_back({"relu0." + std::to_string(relus++),
                                           test::toHostF32(backend, graph.output(layer->name()))});
            }
            backend.fill(loss, 0.0f);
            backend.softmaxCrossEntropy(logits, y, 0.0f, loss, &graph.logitsGrad(), nullptr, 1.0f);
            graph.backward(graph.logitsGrad());
            if (step == 0)
                for (Layer* layer : graph.layers())
                    for (Param* p : layer->params())
                        entries.push_back(
                            {"grad0." + layer->name() + "." + p->name, hostCopy(backend, p->grad)});
            optimizer.step(kLr, nullptr, nullptr);
            graph.zeroGrad();
            backend.copy(loss, lossHost);
            losses.data<float>()[step] = lossHost.data<float>()[0];
        }
        entries.push_back({"loss", losses});
        for (const NamedTensor& t : graph.stateDict())
            entries.push_back({"final." + t.name, hostCopy(backend, *t.tensor)});
        writeSafetensors(path, entries,
                         {{"model", model},
                          {"steps", std::to_string(kSteps)},
                          {"lr", std::to_string(kLr)},
                          {"momentum", "0.9"},
                          {"order", order}});
    }
};

QTEST_GUILESS_MAIN(TestFloat64Trajectory)
#include "tst_float64_trajectory.moc"

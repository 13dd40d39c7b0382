// The zoo's U-Net: its layer names and sizes for any width and depth, the sizes it refuses, and
// its scores and every gradient in training mode against the same network in PyTorch
// (tests/torch/unet_reference.py) from the same weights: ours as close to PyTorch's float64 as
// its float32 is.
#include "backend/cpu/cpubackend.h"
#include "core/errors.h"
#include "io/safetensors.h"
#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "support/testdata.h"
#include "support/torchreference.h"

#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb;

namespace {

Tensor hostCopy(Backend& b, const Tensor& t) {
    Tensor h = Tensor::host(t.shape(), t.dtype());
    b.copy(t, h);
    return h;
}

} // namespace

class TestUnet : public QObject {
    Q_OBJECT
private slots:
    void namesAndSizes() {
        CpuBackend backend(2);
        Graph graph(modelSpec("unet", {3, 32, 48}, 4, {{"width", 8}, {"depth", 3}}), backend,
                    DType::F32, 1);
        QVERIFY(graph.pixelLogits());
        QCOMPARE(graph.positions(), int64_t{32 * 48});
        std::map<std::string, Shape> shapes;
        for (const NamedTensor& t : graph.stateDict())
            shapes[t.name] = t.tensor->shape();
        QCOMPARE(shapes.at("inc.double_conv.0.weight"), (Shape{8, 3, 3, 3}));
        QCOMPARE(shapes.at("down3.maxpool_conv.1.double_conv.3.weight"), (Shape{64, 64, 3, 3}));
        QCOMPARE(shapes.at("down3.maxpool_conv.1.double_conv.4.running_var"), (Shape{64}));
        // up1 joins down2's 32 channels and down3's 64 upsampled: 96 in, 32 out.
        QCOMPARE(shapes.at("up1.conv.double_conv.0.weight"), (Shape{32, 96, 3, 3}));
        QCOMPARE(shapes.at("up3.conv.double_conv.3.weight"), (Shape{8, 8, 3, 3}));
        QCOMPARE(shapes.at("outc.conv.weight"), (Shape{4, 8, 1, 1}));
        QCOMPARE(shapes.at("outc.conv.bias"), (Shape{4}));
    }

    void refusesSidesThatDoNotHalve() {
        QString error;
        try {
            modelSpec("unet", {3, 40, 40}, 2, {{"depth", 4}});
        } catch (const ConfigError& e) {
            QCOMPARE(e.field(), std::string("model.depth"));
            error = e.what();
        }
        QVERIFY2(error.contains("multiples of 16, not 40x40"), qPrintable(error));
        QVERIFY_THROWS_EXCEPTION(ConfigError, modelSpec("unet", {1, 28, 28}, 2, {{"width", 0}}));
    }

    // width 4, depth 3, 3 classes at 24 x 16, batch 2, in training mode (batch statistics).
    void matchesPyTorch() {
        if (const QString why = test::torchUnavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QTemporaryDir dir;
        const QString path = dir.filePath("unet.safetensors");
        CpuBackend backend(2);
        // As PyTorch's CPU convolutions compute (no Winograd), so that float32 noise compares
        // like with like.
        backend.setConvAlgorithm(ConvAlgorithm::Direct);
        Graph graph(modelSpec("unet", {3, 24, 16}, 3, {{"width", 4}, {"depth", 3}}), backend,
                    DType::F32, 5);
        std::vector<SafetensorsEntry> entries;
        for (const NamedTensor& t : graph.stateDict())
            entries.push_back({"init." + t.name, hostCopy(backend, *t.tensor)});
        const Tensor x = test::randomTensor({2, 3, 24, 16}, 11);
        const Tensor& out = graph.forward(x, true);
        const Tensor r = test::randomTensor(out.shape(), 12);
        entries.push_back({"x", x});
        entries.push_back({"r", r});
        entries.push_back({"output", hostCopy(backend, out)});
        backend.copy(r, graph.logitsGrad());
        graph.zeroGrad();
        graph.backward(graph.logitsGrad());
        for (const NamedTensor& t : graph.stateDict())
            for (Param* p : graph.params())
                if (&p->value == t.tensor)
                    entries.push_back({"grad." + t.name, hostCopy(backend, p->grad)});
        writeSafetensors(path.toStdString(), entries,
                         {{"width", "4"},
                          {"depth", "3"},
                          {"classes", "3"},
                          {"parameters", std::to_string(graph.parameterCount())}});
        const QJsonObject result = test::runTorchScript("unet_reference.py", {path});
        QCOMPARE(result["parameters"].toInt(), result["torch_parameters"].toInt());
        const QString failed = test::fartherThanPyTorch(result, {"output", "gradients"});
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
    }
};

QTEST_GUILESS_MAIN(TestUnet)
#include "tst_unet.moc"

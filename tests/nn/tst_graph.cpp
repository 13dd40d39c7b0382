// Model graphs: the zoo's parameter counts match PyTorch's, specs are validated, fan-out
// gradients add up, and the summary knows shapes and FLOPs.
#include "support/buildtree.h"
#include "support/testdata.h"

#include "core/errors.h"
#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "nn/segmentationzoo.h"

#include <QtTest>

using namespace tb;

class TestGraph : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { m_backend = createCpuBackend(2); }

    // Counts printed by tests/bench/torch_reference.py's models.
    void zooMatchesPyTorchParameterCounts_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<qint64>("params");
        QTest::newRow("mlp") << "mlp" << qint64(235146);
        QTest::newRow("lenet5") << "lenet5" << qint64(61706);
        QTest::newRow("fmnist-cnn") << "fmnist-cnn" << qint64(421738);
        QTest::newRow("resnet20") << "resnet20" << qint64(269722);
        QTest::newRow("resnet32") << "resnet32" << qint64(464154);
        QTest::newRow("resnet18") << "resnet18" << qint64(11181642);
        QTest::newRow("resnet34") << "resnet34" << qint64(21289802);
        QTest::newRow("resnet50") << "resnet50" << qint64(23528522);
        QTest::newRow("mobilenet_v2") << "mobilenet_v2" << qint64(2236682);
        QTest::newRow("vgg11_bn") << "vgg11_bn" << qint64(128812810);
        // torchvision.models.segmentation's, with and without aux_loss (at 64 px: the counts do
        // not depend on the size).
        QTest::newRow("fcn_resnet50") << "fcn_resnet50" << qint64(32951370);
        QTest::newRow("fcn_resnet50-aux") << "fcn_resnet50" << qint64(35313748);
        QTest::newRow("deeplabv3_resnet50") << "deeplabv3_resnet50" << qint64(39636042);
        QTest::newRow("deeplabv3_resnet50-aux") << "deeplabv3_resnet50" << qint64(41998420);
    }
    void zooMatchesPyTorchParameterCounts() {
        QFETCH(QString, model);
        QFETCH(qint64, params);
        const bool segmentation = isTorchvisionSegmentation(model.toStdString());
        const Shape input =
            segmentation ? Shape{3, 64, 64} : zooInputShape(model.toStdString(), {1, 28, 28});
        const nlohmann::json options = {
            {"aux_loss", QString(QTest::currentDataTag()).endsWith("-aux")}};
        Graph g(modelSpec(model.toStdString(), input, 10, options), *m_backend, DType::F32, 0);
        QCOMPARE(g.parameterCount(), params);
    }

    // The dilated backbone as torchvision builds it: output stride 8 keeps layer3 and layer4 at
    // an eighth of the image, each stage's first block at the dilation before it; 16 strides
    // layer3. The auxiliary head reads layer3 and is resized to the image like the scores.
    void segmentationBackboneDilates() {
        const auto outputOf = [](const Graph& g, const std::string& name) {
            for (const LayerRow& row : g.summary(1))
                if (row.name == name)
                    return row.output;
            return Shape();
        };
        const auto convOf = [](const nlohmann::json& spec, const std::string& name) {
            for (const auto& l : spec["layers"])
                if (l["name"] == name)
                    return l;
            return nlohmann::json();
        };
        const nlohmann::json os8 =
            modelSpec("deeplabv3_resnet50", {3, 64, 64}, 3, {{"aux_loss", true}});
        QCOMPARE(convOf(os8, "backbone.layer3.0.conv2").value("dilation", 1), 1);
        QCOMPARE(convOf(os8, "backbone.layer3.0.conv2")["stride"].get<int>(), 1);
        QCOMPARE(convOf(os8, "backbone.layer3.1.conv2")["dilation"].get<int>(), 2);
        QCOMPARE(convOf(os8, "backbone.layer4.0.conv2")["dilation"].get<int>(), 2);
        QCOMPARE(convOf(os8, "backbone.layer4.2.conv2")["dilation"].get<int>(), 4);
        QCOMPARE(convOf(os8, "backbone.layer4.2.conv2")["padding"].get<int>(), 4);
        QCOMPARE(convOf(os8, "classifier.0.convs.3.0")["dilation"].get<int>(), 36);
        Graph g8(os8, *m_backend, DType::F32, 0);
        QCOMPARE(outputOf(g8, "backbone.layer4.2.relu"), Shape({1, 2048, 8, 8}));
        QCOMPARE(outputOf(g8, "aux_classifier.upsample"), Shape({1, 3, 64, 64}));
        QCOMPARE(g8.auxiliaryOutputs().size(), std::size_t{1});
        QCOMPARE(g8.auxiliaryOutputs()[0].weight, 0.5f);
        const nlohmann::json os16 =
            modelSpec("fcn_resnet50", {3, 64, 64}, 3, {{"output_stride", 16}});
        QCOMPARE(convOf(os16, "backbone.layer3.0.conv2")["stride"].get<int>(), 2);
        QCOMPARE(convOf(os16, "backbone.layer4.0.conv2").value("dilation", 1), 1);
        QCOMPARE(convOf(os16, "backbone.layer4.1.conv2")["dilation"].get<int>(), 2);
        Graph g16(os16, *m_backend, DType::F32, 0);
        QVERIFY(g16.auxiliaryOutputs().empty());
        QCOMPARE(outputOf(g16, "backbone.layer4.2.relu"), Shape({1, 2048, 4, 4}));
        // DeepLabV3's rates at stride 16, as its paper sets them there.
        const nlohmann::json deeplab16 =
            modelSpec("deeplabv3_resnet50", {3, 64, 64}, 3, {{"output_stride", 16}});
        QCOMPARE(convOf(deeplab16, "classifier.0.convs.1.0")["dilation"].get<int>(), 6);
        QCOMPARE(convOf(deeplab16, "classifier.0.convs.3.0")["dilation"].get<int>(), 18);
        QVERIFY_THROWS_EXCEPTION(
            ConfigError, modelSpec("fcn_resnet50", {3, 64, 64}, 3, {{"output_stride", 32}}));
    }

    void everyZooModelRunsForwardAndBackward() {
        for (const auto& m : modelZoo()) {
            const Shape input = test::testSampleShape(m.defaultInput);
            Graph g(modelSpec(m.name, input, 10), *m_backend, DType::F32, 1);
            Tensor x = test::randomTensor(input.withBatch(2), 5);
            // A language model: ids, a prediction each (a detector's anchors are positions too).
            const bool tokens = g.positions() > 1 && !g.detectHead() && !g.pixelLogits();
            if (tokens)
                for (int64_t i = 0; i < x.numel(); ++i)
                    x.data<float>()[i] = static_cast<float>(i % 10);
            const Tensor& logits = g.forward(x, true);
            // A detector's head: 64 box bins and 10 class logits at each anchor point (cells
            // of the 8, 16 and 32 px maps).
            const int64_t anchors = g.detectHead() ? (input[1] / 8) * (input[2] / 8) +
                                                         (input[1] / 16) * (input[2] / 16) +
                                                         (input[1] / 32) * (input[2] / 32)
                                                   : 0;
            // A segmentation model: 10 class scores at every pixel.
            const Shape want = tokens            ? Shape{2, input[0], 10}
                               : g.detectHead()  ? Shape{2, 64 + 10, anchors}
                               : g.pixelLogits() ? Shape{2, 10, input[1], input[2]}
                                                 : Shape{2, 10};
            QVERIFY2(logits.shape() == want,
                     qPrintable(QString::fromStdString(m.name + ": " + logits.shape().toString() +
                                                       ", not " + want.toString())));
            Tensor& d = g.logitsGrad();
            m_backend->fill(d, 0.1f);
            g.zeroGrad();
            g.backward(d);
            double sum = 0.0;
            for (Param* p : g.params())
                for (int64_t i = 0; i < p->grad.numel(); ++i)
                    sum += std::fabs(p->grad.data<float>()[i]);
            QVERIFY2(sum > 0.0, m.name.c_str());
        }
    }

    // A short last batch, then a full one again: buffers are views of the largest batch.
    void batchSizeMayChangeBetweenCalls() {
        Graph g(modelSpec("fmnist-cnn", {1, 28, 28}, 10), *m_backend, DType::F32, 1);
        for (int64_t n : {8, 3, 8, 5}) {
            Tensor x = test::randomTensor({n, 1, 28, 28}, static_cast<uint64_t>(n));
            QCOMPARE(g.forward(x, true).dim(0), n);
            Tensor& d = g.logitsGrad();
            QCOMPARE(d.dim(0), n);
            m_backend->fill(d, 0.01f);
            g.backward(d);
        }
    }

    // Batch norm as the first layer gets no input gradient but still learns.
    void firstLayerBatchNormLearns() {
        const auto spec = nlohmann::json::parse(
            R"({"input":[2,4,4],"classes":3,"layers":[{"type":"batchnorm2d"},{"type":"flatten"},
                {"type":"linear","out_features":3}]})");
        Graph g(spec, *m_backend, DType::F32, 1);
        Tensor x = test::randomTensor({4, 2, 4, 4}, 9);
        g.forward(x, true);
        Tensor& d = g.logitsGrad();
        Tensor r = test::randomTensor({4, 3}, 10);
        m_backend->copy(r, d);
        g.zeroGrad();
        g.backward(d);
        double sum = 0.0;
        for (int64_t i = 0; i < 2; ++i)
            sum += std::fabs(g.params()[0]->grad.data<float>()[i]);
        QVERIFY(sum > 0.0);
    }

    // A ReLU that alone consumes a batch norm or a residual add is fused into it and runs in
    // place; one whose input has another consumer is not. The fused graph computes exactly
    // what the unfused one does: here the same residual block with an identity (dropout with
    // p = 0) before each ReLU, which blocks the fusion, and the same parameters. 32 channels
    // keep the CPU's activations channel-blocked, as in the zoo's CNNs.
    void fusedReluMatchesTheUnfusedGraph() {
        const auto spec = [](bool fusable) {
            const std::string gap = fusable ? "" : R"({"type":"dropout","p":0.0},)";
            return nlohmann::json::parse(R"({"input":[32,8,8],"classes":4,"layers":[
                {"type":"conv2d","name":"conv","out_channels":32,"kernel":3,"padding":1},
                {"type":"batchnorm2d","name":"bn"},)" +
                                         gap + R"({"type":"relu","name":"bn_relu"},
                {"type":"add","name":"sum","inputs":["bn_relu","input"]},)" +
                                         gap + R"({"type":"relu","name":"out_relu"},
                {"type":"flatten"},{"type":"linear","name":"fc","out_features":4}]})");
        };
        Graph fused(spec(true), *m_backend, DType::F32, 5),
            plain(spec(false), *m_backend, DType::F32, 6);
        const auto rows = fused.summary(8);
        for (const LayerRow& r : rows)
            if (r.type == "relu") {
                QVERIFY(r.inPlace);
                QCOMPARE(r.activationBytes, int64_t{0});
            }
        for (const LayerRow& r : plain.summary(8))
            if (r.type == "relu") {
                QVERIFY(!r.inPlace);
                QVERIFY(r.activationBytes > 0);
            }
        const auto to = plain.stateDict();
        for (const NamedTensor& from : fused.stateDict())
            for (const NamedTensor& t : to)
                if (t.name == from.name)
                    m_backend->copy(*from.tensor, *t.tensor);
        const Tensor x = test::randomTensor({8, 32, 8, 8}, 7);
        for (bool training : {true, false}) {
            const auto host = [&](const Tensor& t) {
                Tensor h = Tensor::host(t.shape(), DType::F32);
                m_backend->copy(t, h);
                return h;
            };
            QCOMPARE(test::maxAbsDiff(host(fused.forward(x, training)),
                                      host(plain.forward(x, training))),
                     0.0f);
        }
        const Tensor d = test::randomTensor({8, 4}, 8);
        for (Graph* g : {&fused, &plain}) {
            g->forward(x, true);
            m_backend->copy(d, g->logitsGrad());
            g->zeroGrad();
            g->backward(g->logitsGrad());
        }
        const auto pf = fused.params(), pp = plain.params();
        QCOMPARE(pf.size(), pp.size());
        for (std::size_t i = 0; i < pf.size(); ++i)
            QVERIFY2(test::maxAbsDiff(pf[i]->grad, pp[i]->grad) < 1e-6f, pf[i]->name.c_str());
    }

    void resnetOptionB() {
        Graph g(modelSpec("resnet20", {3, 32, 32}, 10, {{"shortcut", "B"}}), *m_backend, DType::F32,
                0);
        // Two 1x1 projections (16->32, 32->64) with their batch norms.
        QCOMPARE(g.parameterCount(), qint64(269722 + 16 * 32 + 64 + 32 * 64 + 128));
    }

    void badSpecsNameTheProblem_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("no-layers") << R"({"input":[4],"classes":2})"
                                   << "layers";
        const QString twoHeads =
            R"({"input":[4],"classes":2,"layers":[{"type":"linear","name":"a","out_features":%1},)"
            R"({"type":"linear","name":"b","out_features":2,"inputs":["input"]}],"auxiliary":[%2]})";
        QTest::newRow("auxiliary-unknown") << twoHeads.arg(2).arg(R"({"output":"nope"})")
                                           << "auxiliary output 'nope' is not a layer";
        QTest::newRow("auxiliary-shape")
            << twoHeads.arg(3).arg(R"({"output":"a"})") << "shaped like the logits";
        QTest::newRow("auxiliary-last")
            << twoHeads.arg(2).arg(R"({"output":"b"})") << "another layer than the last";
        QTest::newRow("auxiliary-weight")
            << twoHeads.arg(2).arg(R"({"output":"a","weight":0})") << "above 0";
        QTest::newRow("unknown-type") << R"({"input":[4],"classes":2,"layers":[{"type":"lstm"}]})"
                                      << "unknown layer type 'lstm'";
        QTest::newRow("bad-input-name")
            << R"({"input":[4],"classes":2,"layers":[{"type":"linear","out_features":2,"inputs":["nope"]}]})"
            << "input 'nope'";
        QTest::newRow("bad-option")
            << R"({"input":[4],"classes":2,"layers":[{"type":"linear","out_features":-3}]})"
            << "out_features";
        QTest::newRow("wrong-output")
            << R"({"input":[4],"classes":2,"layers":[{"type":"linear","out_features":3}]})"
            << "logits";
        QTest::newRow("kernel-too-big")
            << R"({"input":[1,4,4],"classes":2,"layers":[{"type":"conv2d","out_channels":2,"kernel":7}]})"
            << "does not fit";
        // A kernel one row larger than the input with a larger stride: -1 / stride rounds to 0.
        QTest::newRow("conv-kernel-too-big-strided")
            << R"({"input":[1,2,2],"classes":2,"layers":[{"type":"conv2d","out_channels":2,"kernel":3,"stride":3}]})"
            << "does not fit";
        QTest::newRow("pool-kernel-too-big-strided")
            << R"({"input":[1,2,2],"classes":2,"layers":[{"type":"maxpool2d","kernel":3,"stride":3}]})"
            << "does not fit";
        // Wrong types used to escape as json type_error.302; out-of-range numbers trained to NaN.
        const QString conv = R"({"input":[1,8,8],"classes":2,"layers":[LAYER,{"type":"flatten"},
                                {"type":"linear","out_features":2}]})";
        const auto with = [&](const char* layer) { return QString(conv).replace("LAYER", layer); };
        QTest::newRow("bn-eps-negative")
            << with(R"({"type":"batchnorm2d","name":"bn","eps":-1})")
            << "layer 'bn': option 'eps' must be a number in (0, 1], got -1";
        QTest::newRow("bn-eps-zero") << with(R"({"type":"batchnorm2d","eps":0})") << "'eps'";
        QTest::newRow("bn-momentum") << with(R"({"type":"batchnorm2d","momentum":1.5})")
                                     << "'momentum' must be a number in [0, 1]";
        QTest::newRow("bn-eps-string")
            << with(R"({"type":"batchnorm2d","eps":"small"})") << "'eps' must be a number";
        QTest::newRow("dropout-p-1") << with(R"({"type":"dropout","p":1})") << "[0, 1)";
        QTest::newRow("leaky-slope")
            << with(R"({"type":"leakyrelu","negative_slope":-2})") << "'negative_slope'";
        QTest::newRow("conv-channels-string")
            << with(R"({"type":"conv2d","name":"c","out_channels":"4"})")
            << "layer 'c': option 'out_channels' must be a whole number from 1 to";
        QTest::newRow("conv-groups-uneven")
            << with(R"({"type":"conv2d","name":"dw","out_channels":6,"groups":4})")
            << "layer 'dw': groups 4 must divide both its 1 input and 6 output channels";
        QTest::newRow("conv-groups-0")
            << with(R"({"type":"conv2d","out_channels":2,"groups":0})") << "'groups'";
        QTest::newRow("conv-dilation-0")
            << with(R"({"type":"conv2d","out_channels":2,"dilation":0})") << "'dilation'";
        QTest::newRow("conv-dilation-too-wide")
            << with(R"({"type":"conv2d","name":"atrous","out_channels":2,"dilation":4})")
            << "layer 'atrous': kernel 3 at dilation 4 does not fit input 1x8x8";
        QTest::newRow("resize-nearest")
            << with(R"({"type":"resize","name":"r","mode":"nearest","size":4})")
            << "layer 'r': mode must be \"bilinear\" (nearest by a whole factor is the upsample";
        QTest::newRow("resize-align-corners")
            << with(R"({"type":"resize","size":4,"align_corners":true})")
            << "align_corners=true is not supported";
        QTest::newRow("resize-no-size")
            << with(R"({"type":"resize"})") << "needs either size ([height, width] or one side)";
        QTest::newRow("resize-size-and-scale")
            << with(R"({"type":"resize","size":4,"scale_factor":2})") << "needs either size";
        QTest::newRow("resize-size-float")
            << with(R"({"type":"resize","size":[4,2.5]})")
            << "size must be [height, width] or one side, whole numbers from 1";
        QTest::newRow("resize-scale-to-nothing")
            << with(R"({"type":"resize","name":"r","scale_factor":0.1})")
            << "layer 'r': scale_factor 0.1";
        QTest::newRow("conv-stride-0")
            << with(R"({"type":"conv2d","out_channels":2,"stride":0})") << "'stride'";
        QTest::newRow("conv-kernel-huge")
            << with(R"({"type":"conv2d","out_channels":2,"kernel":100000})") << "'kernel'";
        QTest::newRow("conv-bias-number")
            << with(R"({"type":"conv2d","out_channels":2,"bias":1})") << "'bias' must be true";
        QTest::newRow("pool-kernel-float")
            << with(R"({"type":"maxpool2d","kernel":2.5})") << "'kernel' must be a whole number";
        QTest::newRow("linear-huge")
            << R"({"input":[4],"classes":2,"layers":[{"type":"linear","out_features":18446744073709551615}]})"
            << "'out_features'";
        QTest::newRow("name-number")
            << with(R"({"type":"relu","name":7})") << "layer 'relu': \"name\" must be a string";
        QTest::newRow("inputs-string")
            << with(R"({"type":"relu","inputs":"input"})") << "\"inputs\" must be a list";
        QTest::newRow("inputs-number")
            << with(R"({"type":"relu","inputs":[1]})") << "\"inputs\" must hold layer names";
        QTest::newRow("classes-string")
            << R"({"input":[4],"classes":"2","layers":[{"type":"linear","out_features":2}]})"
            << "\"classes\" must be a whole number";
        QTest::newRow("spec-name-number")
            << R"({"name":1,"input":[4],"classes":2,"layers":[{"type":"linear","out_features":2}]})"
            << "\"name\" must be a string";
        QTest::newRow("input-huge")
            << R"({"input":[4000000000],"classes":2,"layers":[{"type":"linear","out_features":2}]})"
            << "\"input\" must list sizes";
    }
    void badSpecsNameTheProblem() {
        QFETCH(QString, spec);
        QFETCH(QString, mentions);
        try {
            Graph g(nlohmann::json::parse(spec.toStdString()), *m_backend, DType::F32, 0);
            QFAIL("accepted a bad spec");
        } catch (const ConfigError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QString("model"));
            QVERIFY2(QString(e.what()).contains(mentions), e.what());
        }
    }

    // The example spec shipped in resources/models trains like a zoo model.
    void userSpecFile() {
        const std::string path = test::sourcePath("resources/models/tiny-cnn.json").toStdString();
        Graph g(modelSpec(path, {1, 28, 28}, 10), *m_backend, DType::F32, 0);
        QCOMPARE(g.name(), std::string("tiny-cnn"));
        QCOMPARE(g.parameterCount(), qint64(8 * 9 + 8 + 8 * 14 * 14 * 10 + 10));
        QVERIFY_THROWS_EXCEPTION(ConfigError, modelSpec("/nonexistent/spec.json", {1, 28, 28}, 10));
    }

    // The GPT example composes the transformer layers by hand; "CLASSES" takes the dataset's
    // vocabulary, and the tied output projection has no weight of its own.
    void userGptSpecFile() {
        const std::string path = test::sourcePath("resources/models/tiny-gpt.json").toStdString();
        Graph g(modelSpec(path, {32}, 50), *m_backend, DType::F32, 0);
        QCOMPARE(g.classes(), 50);
        QCOMPARE(g.positions(), int64_t{32});
        const int64_t block =
            2 * 32 * 2 + (32 * 96 + 96) + (32 * 32 + 32) + (32 * 128 + 128) + (128 * 32 + 32);
        QCOMPARE(g.parameterCount(), int64_t{50 * 32 + 32 * 32 + block + 2 * 32});
        Tensor x = Tensor::host({2, 32}, DType::F32);
        for (int64_t i = 0; i < x.numel(); ++i)
            x.data<float>()[i] = static_cast<float>(i % 50);
        QCOMPARE(g.forward(x, true).shape(), (Shape{2, 32, 50}));
        // An embedding reads ids: a spec that puts one after another layer is refused.
        nlohmann::json spec = nlohmann::json::parse(R"({"input": [4, 8], "classes": 5, "layers": [
            {"type": "linear", "out_features": 8},
            {"type": "embedding", "name": "late", "num_embeddings": 5, "embedding_dim": 4}]})");
        try {
            Graph bad(spec, *m_backend, DType::F32, 0);
            QFAIL("an embedding after a linear layer was accepted");
        } catch (const ConfigError& e) {
            QVERIFY2(QString(e.what()).contains("late"), e.what());
        }
    }

    void unknownModelListsTheZoo() {
        try {
            modelSpec("resnet9000", {3, 32, 32}, 10);
            QFAIL("accepted an unknown model");
        } catch (const ConfigError& e) {
            QVERIFY(QString(e.what()).contains("resnet20"));
        }
    }

    void summaryCountsFlops() {
        Graph g(modelSpec("lenet5", {1, 28, 28}, 10), *m_backend, DType::F32, 0);
        const auto rows = g.summary(1);
        QCOMPARE(rows.front().name, std::string("conv1"));
        QCOMPARE(rows.front().output, (Shape{1, 6, 28, 28}));
        // conv1: 6 x 28 x 28 outputs x 25 multiply-adds x 2.
        QCOMPARE(rows.front().flops, qint64(2 * 6 * 28 * 28 * 25));
        // A dilated convolution does the same work as a dense one; bilinear resizing 9 an output.
        const nlohmann::json spec = nlohmann::json::parse(R"({"input": [2, 8, 8], "classes": 2,
            "layers": [{"type": "conv2d", "name": "atrous", "out_channels": 3, "kernel": 3,
                        "padding": 2, "dilation": 2},
                       {"type": "resize", "name": "up", "size": [16, 12]},
                       {"type": "flatten"}, {"type": "linear", "out_features": 2}]})");
        const auto atrous = Graph(spec, *m_backend, DType::F32, 0).summary(1);
        QCOMPARE(atrous[0].flops, qint64(2 * 3 * 8 * 8 * 2 * 9));
        QCOMPARE(atrous[1].output, (Shape{1, 3, 16, 12}));
        QCOMPARE(atrous[1].flops, qint64(9 * 3 * 16 * 12));
    }

private:
    std::unique_ptr<Backend> m_backend;
};

QTEST_GUILESS_MAIN(TestGraph)
#include "tst_graph.moc"

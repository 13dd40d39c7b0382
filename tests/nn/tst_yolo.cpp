// YOLOv8's detectors (nn/yolozoo): the structure Ultralytics publishes (every scale's parameter
// count, yolov8n's module by module, the state dict's names) and, against YOLOv8 written in
// PyTorch from Ultralytics' definitions (tests/bench/torch_yolo.py), the same output and
// gradients from the same weights within float32 noise (tests/torch/yolo_reference.py).
#include "backend/cpu/cpubackend.h"
#include "backend/kernels/random_math.h"
#include "backend/metabackend.h"
#include "core/errors.h"
#include "io/safetensors.h"
#include "nn/detecthead.h"
#include "nn/graph.h"
#include "nn/yolozoo.h"
#include "support/testdata.h"
#include "support/torchreference.h"
#include "train/pretrained.h"

#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <map>

using namespace tb;

namespace {

nlohmann::json yoloSpec(const std::string& name, const Shape& input, int classes) {
    return {{"name", name},
            {"input", input.dims()},
            {"classes", classes},
            {"layers", yoloV8Layers(name, input, classes)}};
}

Tensor hostCopy(Backend& b, const Tensor& t) {
    Tensor h = Tensor::host(t.shape(), t.dtype());
    b.copy(t, h);
    return h;
}

// The number of values in every parameter and buffer that Ultralytics counts as a parameter
// (all but batch norm's running statistics), by the module (model.I) it belongs to.
std::map<int, int64_t> countsByModule(Graph& graph) {
    std::map<int, int64_t> counts;
    for (const NamedTensor& t : graph.stateDict()) {
        if (t.name.ends_with("running_mean") || t.name.ends_with("running_var"))
            continue;
        const auto dot = t.name.find('.', 6);
        counts[std::stoi(t.name.substr(6, dot - 6))] += t.tensor->numel();
    }
    return counts;
}

} // namespace

class TestYolo : public QObject {
    Q_OBJECT
private slots:
    // Ultralytics' model summaries at 80 classes ("YOLOv8n summary: 225 layers, 3157200
    // parameters, 3157184 gradients"): the 16 that do not train are the DFL's fixed bins.
    void parameterCountsMatchUltralytics_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<qlonglong>("published");
        QTest::newRow("yolov8n") << "yolov8n" << 3157200LL;
        QTest::newRow("yolov8s") << "yolov8s" << 11166560LL;
        QTest::newRow("yolov8m") << "yolov8m" << 25902640LL;
        QTest::newRow("yolov8l") << "yolov8l" << 43691520LL;
        QTest::newRow("yolov8x") << "yolov8x" << 68229648LL;
    }
    void parameterCountsMatchUltralytics() {
        QFETCH(QString, model);
        QFETCH(qlonglong, published);
        MetaBackend meta;
        Graph graph(yoloSpec(model.toStdString(), {3, 64, 64}, 80), meta, DType::F32, 1);
        QCOMPARE(graph.parameterCount(), published - 16);
        int64_t counted = 0;
        for (const auto& [module, count] : countsByModule(graph))
            counted += count;
        QCOMPARE(counted, published);
    }

    // yolov8n's table as Ultralytics prints it (module index: parameters), the Detect head's
    // 897,664 including the DFL's 16.
    void yolov8nModuleByModule() {
        const std::map<int, int64_t> published = {
            {0, 464},    {1, 4672},    {2, 7360},    {3, 18560},   {4, 49664},   {5, 73984},
            {6, 197632}, {7, 295424},  {8, 460288},  {9, 164608},  {12, 148224}, {15, 37248},
            {16, 36992}, {18, 123648}, {19, 147712}, {21, 493056}, {22, 897664}};
        MetaBackend meta;
        Graph graph(yoloSpec("yolov8n", {3, 64, 64}, 80), meta, DType::F32, 1);
        QCOMPARE(countsByModule(graph), published);
    }

    // One column per anchor point: 8x8 + 4x4 + 2x2 at 64 px; 4 x 16 distribution bins and the
    // class logits per column; Ultralytics' names; sides that are not multiples of 32 refused.
    void outputAndNames() {
        MetaBackend meta;
        Graph graph(yoloSpec("yolov8n", {3, 64, 96}, 3), meta, DType::F32, 1);
        QVERIFY(graph.detectHead());
        QCOMPARE(graph.positions(), int64_t{8 * 12 + 4 * 6 + 2 * 3});
        QCOMPARE(graph.summary(2).back().output, (Shape{2, 64 + 3, 8 * 12 + 4 * 6 + 2 * 3}));
        QCOMPARE(graph.detectHead()->strides(), (std::vector<int64_t>{8, 16, 32}));
        std::vector<std::string> names;
        for (const NamedTensor& t : graph.stateDict())
            names.push_back(t.name);
        for (const char* expected :
             {"model.0.conv.weight", "model.0.bn.running_var", "model.2.m.0.cv1.conv.weight",
              "model.9.cv2.bn.bias", "model.22.cv2.0.0.conv.weight", "model.22.cv3.2.2.bias",
              "model.22.dfl.conv.weight"})
            QVERIFY2(std::find(names.begin(), names.end(), expected) != names.end(), expected);
        try {
            yoloV8Layers("yolov8n", {3, 60, 64}, 3);
            QFAIL("a 60 px side was accepted");
        } catch (const ConfigError& e) {
            QVERIFY2(std::string(e.what()).find("multiples of 32") != std::string::npos, e.what());
        }
    }

    // yolov8n for 3 classes at 64 px, batch 2, in training mode (batch statistics): the
    // flattened head output and every parameter's gradient of sum(output * r) against
    // PyTorch's from the same weights: ours as close to PyTorch's float64 as its float32 is.
    void matchesPyTorch() {
        if (const QString why = test::torchUnavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QTemporaryDir dir;
        const QString path = dir.filePath("yolo.safetensors");
        CpuBackend backend(2);
        // As PyTorch's CPU convolutions compute (no Winograd), so that float32 noise compares
        // like with like.
        backend.setConvAlgorithm(ConvAlgorithm::Direct);
        Graph graph(yoloSpec("yolov8n", {3, 64, 64}, 3), backend, DType::F32, 5);
        std::vector<SafetensorsEntry> entries;
        for (const NamedTensor& t : graph.stateDict())
            entries.push_back({"init." + t.name, hostCopy(backend, *t.tensor)});
        const Tensor x = test::randomTensor({2, 3, 64, 64}, 11);
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
                         {{"scale", "n"},
                          {"classes", "3"},
                          {"parameters", std::to_string(graph.parameterCount())}});
        const QJsonObject result = test::runTorchScript("yolo_reference.py", {path});
        QCOMPARE(result["parameters"].toInt(), result["torch_parameters"].toInt());
        const QString failed = test::fartherThanPyTorch(result, {"output", "gradients"});
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
    }

    // model.pretrained with what Ultralytics users export, YOLOv8's state dict saved by
    // torch.save: for the same classes every tensor loads (batch-norm statistics included);
    // for COCO's 80 classes on a 5-class set, all but the class branch (Detect.cv3, whose
    // widths follow the class count), which stays initialised as Ultralytics leaves it.
    void loadsUltralyticsStateDicts_data() {
        QTest::addColumn<int>("fileClasses");
        QTest::newRow("same classes") << 5;
        QTest::newRow("COCO's 80") << 80;
    }
    void loadsUltralyticsStateDicts() {
        QFETCH(int, fileClasses);
        if (const QString why = test::torchUnavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QTemporaryDir dir;
        const QString path = dir.filePath("yolov8n.pth");
        const QJsonObject sums =
            test::runTorchScript("yolo_state_dict.py", {path, "n", QString::number(fileClasses)});
        CpuBackend backend(2);
        Graph graph(yoloSpec("yolov8n", {3, 64, 64}, 5), backend, DType::F32, 3);
        const PretrainedLoad load = loadPretrained(path.toStdString(), graph, false);
        QVERIFY(load.missing.empty());
        QVERIFY(load.unexpected.empty());
        QCOMPARE(load.prefix, std::string());
        int64_t checked = 0, classBranch = 0;
        for (const NamedTensor& t : graph.stateDict()) {
            const bool inClassBranch = t.name.rfind("model.22.cv3.", 0) == 0;
            classBranch += inClassBranch;
            if (inClassBranch && fileClasses != 5)
                continue;
            const Tensor host = hostCopy(backend, *t.tensor);
            double sum = 0;
            for (int64_t i = 0; i < host.numel(); ++i)
                sum += host.data<float>()[i];
            const double want = sums[QString::fromStdString(t.name)].toObject()["sum"].toDouble();
            QVERIFY2(std::abs(sum - want) <= 1e-4 * std::max(1.0, std::abs(want)),
                     qPrintable(QString("%1: %2 vs %3").arg(t.name.c_str()).arg(sum).arg(want)));
            ++checked;
        }
        QVERIFY(classBranch > 0);
        if (fileClasses == 5) {
            QVERIFY(load.replacedHead.empty());
            QCOMPARE(load.loaded, checked);
        } else {
            QVERIFY2(load.replacedHead.rfind("model.22.cv3: ", 0) == 0, load.replacedHead.c_str());
            QCOMPARE(load.loaded, checked);
            QCOMPARE(load.loaded + classBranch, static_cast<int64_t>(graph.stateDict().size()));
        }
    }
};

QTEST_GUILESS_MAIN(TestYolo)
#include "tst_yolo.moc"

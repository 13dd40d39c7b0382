// ONNX export checked by other people's code. Every zoo model (the big ones at 32 px), a spec
// using the layer types the zoo does not, and a small GPT are exported with random weights and
// batch-norm statistics that do real work; ONNX's checker (full check) must accept each file,
// and ONNX Runtime and OpenCV must compute TrainBench's evaluation-mode logits for a batch
// within 1e-4 (relative) with the same top-1 on every sample. OpenCV 4.6 cannot run a few of
// them (kOpenCvCannot says which and why); the test checks it still cannot, so the list stays
// true. Also: a file reads back into the engine bit-exactly, layers ONNX cannot express and
// files that are not TrainBench's exports are refused by name, the PyTorch-named weights load
// into torchvision's models with strict=True, and the README's deployment snippets run.
#include "backend/cpu/cpubackend.h"
#include "core/errors.h"
#include "data/imagecodec.h"
#include "export/modelexport.h"
#include "export/onnxexport.h"
#include "export/onnxmodelfile.h"
#include "export/torchweights.h"
#include "io/safetensors.h"
#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "support/buildtree.h"
#include "support/torchreference.h"
#include "train/trainedmodel.h"

#include <onnx/onnx_pb.h>

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <map>
#include <random>

using namespace tb;
using namespace tb::test;

namespace {

constexpr int64_t kBatch = 4;

struct ZooCase {
    const char* tag;
    std::string model; // a zoo name, or "every-layer" (the spec below)
    Shape input;
    int classes;
    nlohmann::json options = nlohmann::json::object();
};

const std::vector<ZooCase>& zooCases() {
    static const std::vector<ZooCase> cases = {
        {"mlp", "mlp", {1, 28, 28}, 10},
        {"lenet5", "lenet5", {1, 28, 28}, 10},
        {"fmnist-cnn", "fmnist-cnn", {1, 28, 28}, 10},
        {"resnet20", "resnet20", {3, 32, 32}, 10},
        {"resnet20-shortcut-b", "resnet20", {3, 32, 32}, 10, {{"shortcut", "B"}}},
        {"resnet32", "resnet32", {3, 32, 32}, 10},
        {"resnet56", "resnet56", {3, 32, 32}, 10},
        {"vgg-small", "vgg-small", {3, 32, 32}, 10},
        {"resnet18", "resnet18", {3, 32, 32}, 10},
        {"resnet34", "resnet34", {3, 32, 32}, 10},
        {"resnet50", "resnet50", {3, 32, 32}, 10},
        {"mobilenet_v2", "mobilenet_v2", {3, 32, 32}, 10},
        {"vgg11_bn", "vgg11_bn", {3, 32, 32}, 10},
        {"every-layer", "every-layer", {3, 16, 16}, 5},
        {"gpt", "gpt", {16}, 20, {{"n_layer", 2}, {"n_head", 2}, {"n_embd", 32}}},
        {"yolov8n", "yolov8n", {3, 64, 64}, 5}, // the raw head: (N, 64 + 5, 84 anchors)
        {"unet", "unet", {3, 32, 32}, 4},       // a score per class and pixel: (N, 4, 32, 32)
        // Dilated ResNet-50, ASPP (its pooling branch resized back from 1 x 1) and the auxiliary
        // head, whose branch the export leaves out of the outputs.
        {"deeplabv3_resnet50", "deeplabv3_resnet50", {3, 32, 32}, 3, {{"aux_loss", true}}},
    };
    return cases;
}

// What OpenCV 4.6's ONNX importer refuses: the node its error names, and why.
struct Refusal {
    QString node;
    QString why;
};
const std::map<QString, Refusal> kOpenCvCannot = {
    {"mobilenet_v2",
     {"Clip", "ReLU6 is a Clip whose bounds are inputs (opset 11 on); its "
              "importer reads only the attribute form of opsets before 11"}},
    {"every-layer", {"Clip", "ReLU6 (Clip with its bounds as inputs), as for mobilenet_v2"}},
    {"gpt",
     {"Gather", "int64 token ids and shapes computed in the graph (Shape, Slice by a "
                "length)"}},
};

// The layer types no zoo model has, with the options the zoo leaves at their defaults.
const char* kEveryLayerSpec = R"({
  "name": "every-layer", "input": [3, 16, 16], "classes": "CLASSES",
  "layers": [
    {"type": "conv2d", "name": "conv1", "out_channels": 8, "kernel": 3, "padding": 1},
    {"type": "leakyrelu", "name": "act1", "negative_slope": 0.2},
    {"type": "avgpool2d", "name": "pool1", "kernel": 3, "stride": 2, "padding": 1},
    {"type": "conv2d", "name": "conv2", "out_channels": 8, "kernel": 3, "dilation": 2,
     "padding": 2, "bias": false},
    {"type": "gelu", "name": "act2"},
    {"type": "silu", "name": "act_silu"},
    {"type": "channel_slice", "name": "half", "begin": 4, "end": 8},
    {"type": "maxpool2d", "name": "sppf_pool", "kernel": 5, "stride": 1, "padding": 2},
    {"type": "concat", "name": "join", "inputs": ["act_silu", "half", "sppf_pool"]},
    {"type": "adaptiveavgpool2d", "name": "pool2", "output_size": 4},
    {"type": "upsample", "name": "up", "scale_factor": 2},
    {"type": "resize", "name": "resize_up", "size": [11, 13]},
    {"type": "resize", "name": "resize_down", "scale_factor": 0.5},
    {"type": "batchnorm2d", "name": "bn"},
    {"type": "relu6", "name": "act3"},
    {"type": "flatten", "name": "flatten"},
    {"type": "linear", "name": "fc1", "out_features": 16},
    {"type": "gelu", "name": "act4", "approximate": "tanh"},
    {"type": "dropout", "name": "drop", "p": 0.3},
    {"type": "linear", "name": "fc2", "out_features": "CLASSES"}
  ]})";

Tensor hostCopy(Backend& b, const Tensor& t) {
    Tensor h = Tensor::host(t.shape(), DType::F32);
    b.copy(t, h);
    return h;
}

void fillUniform(Backend& b, Tensor& t, float lo, float hi, std::mt19937& rng) {
    Tensor h = Tensor::host(t.shape(), DType::F32);
    std::uniform_real_distribution<float> u(lo, hi);
    for (int64_t i = 0; i < h.numel(); ++i)
        h.data<float>()[i] = u(rng);
    b.copy(h, t);
}

// Batch norm's running statistics and the norms' affine parameters drawn at random, so the
// evaluation-mode graph does real work with them (fresh ones are 0, 1, 1, 0).
void randomiseNorms(Graph& graph, std::mt19937& rng) {
    for (Layer* layer : graph.layers()) {
        if (layer->type() != "batchnorm2d" && layer->type() != "layer_norm")
            continue;
        for (const NamedTensor& t : graph.stateDict()) {
            const std::string prefix = layer->name() + ".";
            if (t.name.rfind(prefix, 0) != 0)
                continue;
            const std::string what = t.name.substr(prefix.size());
            if (what == "running_mean" || what == "bias")
                fillUniform(graph.backend(), *t.tensor, -0.2f, 0.2f, rng);
            else if (what == "running_var" || what == "weight")
                fillUniform(graph.backend(), *t.tensor, 0.5f, 1.5f, rng);
        }
    }
}

struct Built {
    std::unique_ptr<CpuBackend> backend;
    std::unique_ptr<Graph> graph;
    ModelCard card;
};

Built build(const ZooCase& c, const QString& dir) {
    Built b;
    b.backend = std::make_unique<CpuBackend>(2);
    std::string model = c.model;
    if (model == "every-layer") {
        model = QDir(dir).filePath("every-layer.json").toStdString();
        std::ofstream(model) << kEveryLayerSpec;
    }
    b.card.model = c.tag;
    b.card.dataset = "test";
    b.card.spec = modelSpec(model, c.input, c.classes, c.options);
    b.card.sampleShape = c.input;
    for (int i = 0; i < c.classes; ++i)
        b.card.classNames.push_back("class " + std::to_string(i));
    if (c.model == "gpt") {
        for (int i = 0; i < c.classes; ++i)
            b.card.vocabulary.push_back(std::string(1, static_cast<char>('a' + i)));
    } else {
        for (int64_t ch = 0; ch < c.input[0]; ++ch) {
            b.card.mean.push_back(0.4f + 0.05f * static_cast<float>(ch));
            b.card.stdDev.push_back(0.25f + 0.02f * static_cast<float>(ch));
        }
    }
    b.graph = std::make_unique<Graph>(b.card.spec, *b.backend, DType::F32, 7);
    std::mt19937 rng(11);
    randomiseNorms(*b.graph, rng);
    return b;
}

// A batch as a caller feeds it (pixels in [0, 1], or token ids) and as the graph reads it.
std::pair<Tensor, Tensor> batchFor(const Built& b, uint64_t seed) {
    Tensor raw = Tensor::host(b.card.sampleShape.withBatch(kBatch), DType::F32);
    std::mt19937 rng(static_cast<uint32_t>(seed));
    std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
    std::uniform_int_distribution<int> token(0, static_cast<int>(b.card.vocabulary.size()) - 1);
    for (int64_t i = 0; i < raw.numel(); ++i)
        raw.data<float>()[i] = b.card.readsTokenIds() ? static_cast<float>(token(rng)) : pixel(rng);
    Tensor fed = Tensor::host(raw.shape(), DType::F32);
    const int64_t plane =
        b.card.readsTokenIds() ? raw.numel() : b.card.sampleShape.numel() / b.card.sampleShape[0];
    for (int64_t i = 0; i < raw.numel(); ++i) {
        const auto c =
            static_cast<std::size_t>((i / plane) % std::max<int64_t>(1, b.card.sampleShape[0]));
        fed.data<float>()[i] = b.card.mean.empty()
                                   ? raw.data<float>()[i]
                                   : (raw.data<float>()[i] - b.card.mean[c]) / b.card.stdDev[c];
    }
    return {raw, fed};
}

QJsonObject lastJsonLine(const QByteArray& out) {
    const QList<QByteArray> lines = out.trimmed().split('\n');
    return QJsonDocument::fromJson(lines.isEmpty() ? QByteArray() : lines.last()).object();
}

QString nodeModules() {
    const QString fromEnv = qEnvironmentVariable("TB_ORT_NODE_MODULES");
    return fromEnv.isEmpty() ? QStringLiteral("/usr/local/lib/trainbench-tests/node_modules")
                             : fromEnv;
}

// Why ONNX Runtime cannot run here, or empty.
QString onnxRuntimeUnavailable() {
    if (QStandardPaths::findExecutable("node").isEmpty())
        return "no node to run onnxruntime-node with (Debian: apt install nodejs)";
    if (!QDir(nodeModules() + "/onnxruntime-node").exists())
        return "onnxruntime-node is not in " + nodeModules() +
               " (installers/debian-deps.sh installs it with TB_WITH_TORCH=1)";
    return {};
}

// Starts a program; finishProgram() waits for it.
void startProgram(QProcess& p, const QString& program, const QStringList& args,
                  const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
                  const QString& workDir = {}) {
    p.setProcessEnvironment(env);
    if (!workDir.isEmpty())
        p.setWorkingDirectory(workDir);
    p.start(program, args);
}

// Waits for a started program to end; its stdout, or a failure naming what it wrote to stderr.
QByteArray finishProgram(QProcess& p) {
    p.waitForFinished(300000);
    const QByteArray out = p.readAllStandardOutput();
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        throw std::runtime_error((p.program() + " " + p.arguments().join(' ') +
                                  " failed: " + QString::fromLocal8Bit(p.readAllStandardError()))
                                     .toStdString());
    return out;
}

// Runs a program to its end: finishProgram's result.
QByteArray runProgram(const QString& program, const QStringList& args,
                      const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
                      const QString& workDir = {}) {
    QProcess p;
    startProgram(p, program, args, env, workDir);
    return finishProgram(p);
}

QProcessEnvironment nodeEnvironment() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("NODE_PATH", nodeModules());
    return env;
}

} // namespace

class TestOnnx : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QJsonObject m_python; // check_onnx.py's findings by model
    QJsonObject m_ort;    // run_ort.js's
    QString m_pythonFailure, m_ortSkip;

private slots:
    // Exports every case with a batch of inputs and the engine's logits beside it, then runs
    // each checker once over the folder.
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        for (const ZooCase& c : zooCases()) {
            Built b = build(c, m_dir.path());
            const auto [raw, fed] = batchFor(b, 3);
            const Tensor logits = hostCopy(*b.backend, b.graph->forward(fed, false));
            const QString base = m_dir.filePath(c.tag);
            exportOnnx(*b.graph, b.card, (base + ".onnx").toStdString());
            writeSafetensors((base + ".io.safetensors").toStdString(),
                             {{"x", raw}, {"logits", logits}}, {});
        }
        // The two checkers read the same files, each on one core: side by side.
        QProcess python, ort;
        startProgram(python, "/usr/bin/python3",
                     {test::sourcePath("tests/onnx/check_onnx.py"), m_dir.path()});
        m_ortSkip = onnxRuntimeUnavailable();
        if (m_ortSkip.isEmpty())
            startProgram(ort, "node", {test::sourcePath("tests/onnx/run_ort.js"), m_dir.path()},
                         nodeEnvironment());
        try {
            m_python = lastJsonLine(finishProgram(python));
        } catch (const std::exception& e) {
            m_pythonFailure = e.what();
        }
        if (m_ortSkip.isEmpty())
            m_ort = lastJsonLine(finishProgram(ort));
    }

    void checkerAcceptsEveryExport_data() { zooRows(); }
    void checkerAcceptsEveryExport() {
        QFETCH(QString, tag);
        QVERIFY2(m_pythonFailure.isEmpty(), qPrintable(m_pythonFailure));
        const QJsonValue checker = m_python[tag].toObject()["checker"];
        if (checker.isObject())
            QSKIP(qPrintable("python3-onnx is not installed (Debian: apt install python3-onnx): " +
                             checker.toObject()["unavailable"].toString()));
        QCOMPARE(checker.toString(), QStringLiteral("ok"));
    }

    void onnxRuntimeComputesTheSameLogits_data() { zooRows(); }
    void onnxRuntimeComputesTheSameLogits() {
        QFETCH(QString, tag);
        if (!m_ortSkip.isEmpty())
            QSKIP(qPrintable(m_ortSkip));
        verifyAgreement(m_ort[tag].toObject());
    }

    void openCvComputesTheSameLogits_data() { zooRows(); }
    void openCvComputesTheSameLogits() {
        QFETCH(QString, tag);
        QVERIFY2(m_pythonFailure.isEmpty(), qPrintable(m_pythonFailure));
        const QJsonObject result = m_python[tag].toObject()["opencv"].toObject();
        if (result.contains("unavailable"))
            QSKIP(qPrintable("python3-opencv is not installed (Debian: apt install "
                             "python3-opencv): " +
                             result["unavailable"].toString()));
        const auto cannot = kOpenCvCannot.find(tag);
        if (cannot != kOpenCvCannot.end()) {
            QVERIFY2(result.contains("error"), "OpenCV runs it now: take it off kOpenCvCannot "
                                               "and the README's list");
            QVERIFY2(result["error"].toString().contains(cannot->second.node),
                     qPrintable(result["error"].toString()));
            QSKIP(qPrintable("OpenCV 4.6 cannot run it: " + cannot->second.why));
        }
        verifyAgreement(result);
    }

    // predict reads an export back: the engine, given the file's weights, computes what it
    // computed before export, bit for bit.
    void fileReadsBackExactly_data() {
        QTest::addColumn<QString>("tag");
        for (const char* tag : {"fmnist-cnn", "resnet20", "mobilenet_v2", "every-layer", "gpt"})
            QTest::newRow(tag) << QString(tag);
    }
    void fileReadsBackExactly() {
        QFETCH(QString, tag);
        const ZooCase& c = caseOf(tag);
        Built b = build(c, m_dir.path());
        const auto [raw, fed] = batchFor(b, 3);
        const Tensor want = hostCopy(*b.backend, b.graph->forward(fed, false));
        TrainedModel back(m_dir.filePath(tag + ".onnx").toStdString());
        QCOMPARE(back.card().classNames, b.card.classNames);
        QCOMPARE(back.card().sampleShape, b.card.sampleShape);
        QCOMPARE(back.card().vocabulary, b.card.vocabulary);
        QCOMPARE(back.card().mean, b.card.mean);
        QCOMPARE(back.card().stdDev.size(), b.card.stdDev.size());
        for (std::size_t i = 0; i < b.card.stdDev.size(); ++i)
            QVERIFY(std::abs(back.card().stdDev[i] - b.card.stdDev[i]) < 1e-6f);
        const Tensor got = hostCopy(back.backend(), back.graph().forward(fed, false));
        QCOMPARE(got.numel(), want.numel());
        for (int64_t i = 0; i < got.numel(); ++i)
            QCOMPARE(got.data<float>()[i], want.data<float>()[i]);
    }

    // A fixed --batch is written into the graph's input and output; opsets outside what the
    // exporter writes are refused naming the option.
    void fixedBatchAndOpsetRange() {
        Built b = build(caseOf("lenet5"), m_dir.path());
        const std::string path = m_dir.filePath("fixed.onnx").toStdString();
        exportOnnx(*b.graph, b.card, path, {13, 8});
        onnx::ModelProto model;
        std::ifstream in(path, std::ios::binary);
        QVERIFY(model.ParseFromIstream(&in));
        QCOMPARE(model.opset_import(0).version(), int64_t{13});
        QCOMPARE(model.graph().input(0).type().tensor_type().shape().dim(0).dim_value(),
                 int64_t{8});
        QCOMPARE(model.graph().output(0).type().tensor_type().shape().dim(0).dim_value(),
                 int64_t{8});
        for (int opset : {12, 18}) {
            try {
                exportOnnx(*b.graph, b.card, path, {opset, 0});
                QFAIL("an opset out of range was accepted");
            } catch (const ConfigError& e) {
                QCOMPARE(e.field(), std::string("--opset"));
            }
        }
    }

    // Layers ONNX cannot express at the asked opset, or at all, are errors naming the layer and
    // the op; no file is left behind.
    void refusesWhatOnnxCannotExpress() {
        const std::string path = m_dir.filePath("refused.onnx").toStdString();
        Built gpt = build(caseOf("gpt"), m_dir.path());
        expectRefusal(
            [&] {
                exportOnnx(*gpt.graph, gpt.card, path, {13, 0});
            },
            {"layer 'transformer.wpe'", "opset 15"});
        expectRefusal(
            [&] {
                exportOnnx(*gpt.graph, gpt.card, path, {16, 0});
            },
            {"layer_norm", "LayerNormalization needs opset 17"});
        CpuBackend backend(1);
        const nlohmann::json spec = nlohmann::json::parse(R"({
          "name": "uneven", "input": [1, 10, 10], "classes": 3,
          "layers": [{"type": "adaptiveavgpool2d", "name": "pool", "output_size": 7},
                     {"type": "linear", "name": "fc", "out_features": 3}]})");
        Graph uneven(spec, backend, DType::F32, 1);
        ModelCard card;
        card.model = "uneven";
        card.spec = spec;
        card.sampleShape = {1, 10, 10};
        card.classNames = {"a", "b", "c"};
        expectRefusal([&] { exportOnnx(uneven, card, path); },
                      {"layer 'pool' (adaptiveavgpool2d)", "10x10 to 7x7", "unequal size"});
        QVERIFY(!QFile::exists(QString::fromStdString(path)));
    }

    // A file that is not ONNX, one cut short, and another producer's model are refused naming
    // the file and the reason.
    void refusesFilesThatAreNotTrainBenchExports() {
        const QString text = m_dir.filePath("notes.onnx");
        QFile f(text);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not an ONNX model\n");
        f.close();
        expectRefusal([&] { readOnnxModelFile(text.toStdString()); },
                      {text.toStdString(), "not an ONNX model"});

        QFile whole(m_dir.filePath("resnet20.onnx"));
        QVERIFY(whole.open(QIODevice::ReadOnly));
        const QByteArray bytes = whole.readAll();
        const QString cut = m_dir.filePath("cut.onnx");
        QFile half(cut);
        QVERIFY(half.open(QIODevice::WriteOnly));
        half.write(bytes.left(bytes.size() / 2));
        half.close();
        expectRefusal([&] { TrainedModel model(cut.toStdString()); },
                      {cut.toStdString(), "not an ONNX model"});

        onnx::ModelProto foreign;
        foreign.set_ir_version(8);
        foreign.set_producer_name("pytorch");
        onnx::NodeProto* node = foreign.mutable_graph()->add_node();
        node->set_op_type("Relu");
        node->add_input("x");
        node->add_output("y");
        const std::string other = m_dir.filePath("other.onnx").toStdString();
        std::ofstream out(other, std::ios::binary);
        QVERIFY(foreign.SerializeToOstream(&out));
        out.close();
        expectRefusal([&] { readOnnxModelFile(other); },
                      {other, "'pytorch'", "not one TrainBench exported"});
    }

    // Weights that do not fill their shape: an initializer whose shape claims a thousand times
    // its data (nothing that size is allocated) and one whose data was cut short are refused
    // naming the file, the initializer and both sizes.
    void refusesInitializersOfAnotherSize() {
        QFile whole(m_dir.filePath("resnet20.onnx"));
        QVERIFY(whole.open(QIODevice::ReadOnly));
        const QByteArray bytes = whole.readAll();
        for (const bool grow : {true, false}) {
            onnx::ModelProto model;
            QVERIFY(model.ParseFromArray(bytes.constData(), static_cast<int>(bytes.size())));
            onnx::TensorProto* weight = nullptr; // the first weight of the state dict
            for (onnx::TensorProto& t : *model.mutable_graph()->mutable_initializer())
                if (!weight && !t.raw_data().empty() && t.dims_size() == 4)
                    weight = &t;
            QVERIFY(weight);
            const std::string held = std::to_string(weight->raw_data().size());
            std::vector<std::string> says{"initializer '" + weight->name() + "'"};
            if (grow) {
                weight->set_dims(0, weight->dims(0) * 1000);
                says.push_back("has a shape its " + held + " bytes do not fill");
            } else {
                weight->mutable_raw_data()->resize(weight->raw_data().size() - 4);
                says.push_back("holds " + std::to_string(weight->raw_data().size()) +
                               " bytes, its shape " + held);
            }
            const std::string path =
                m_dir.filePath(grow ? "grown.onnx" : "shrunk.onnx").toStdString();
            std::ofstream out(path, std::ios::binary);
            QVERIFY(model.SerializeToOstream(&out));
            out.close();
            says.push_back(path);
            expectRefusal([&] { readOnnxModelFile(path); }, says);
        }
    }

    void unwritablePlaceIsNamed() {
        Built b = build(caseOf("mlp"), m_dir.path());
        const std::string path = "/nonexistent-folder/model.onnx";
        expectRefusal([&] { exportOnnx(*b.graph, b.card, path); }, {path});
    }

    // The PyTorch-named weights load into torchvision 0.14's own model with strict=True and
    // give the engine's logits.
    void torchvisionLoadsTheWeightsStrictly_data() {
        QTest::addColumn<QString>("tag");
        QTest::newRow("resnet18") << QString("resnet18");
        QTest::newRow("mobilenet_v2") << QString("mobilenet_v2");
    }
    void torchvisionLoadsTheWeightsStrictly() {
        QFETCH(QString, tag);
        if (!torchUnavailableReason().isEmpty())
            QSKIP(qPrintable(torchUnavailableReason()));
        Built b = build(caseOf(tag), m_dir.path());
        const auto [raw, fed] = batchFor(b, 5);
        const Tensor logits = hostCopy(*b.backend, b.graph->forward(fed, false));
        const QString weights = m_dir.filePath(tag + ".safetensors");
        writeTorchWeights(*b.graph, b.card, weights.toStdString());
        const QString io = m_dir.filePath(tag + ".torch-io.safetensors");
        writeSafetensors(io.toStdString(), {{"x", fed}, {"logits", logits}}, {});
        const QJsonObject r = runTorchScript("export_reference.py", {tag, weights, io, "10"});
        qInfo("torchvision's %s on these weights: relative error %.2e", qPrintable(tag),
              r["relative_error"].toDouble());
        QVERIFY2(r["relative_error"].toDouble() < 1e-5,
                 qPrintable(QString::number(r["relative_error"].toDouble())));
        QVERIFY(r["top1_agree"].toBool());
        if (tag != "resnet18")
            return;
        // The README's PyTorch snippet, as written, on these weights (a stand-in for the
        // safetensors package, which Debian lacks, reads them).
        const QString snippet = readmeSnippet("deploy:pytorch");
        QVERIFY2(!snippet.isEmpty(), "the README lost its PyTorch snippet");
        QTemporaryDir work;
        QVERIFY(QFile::copy(weights, work.filePath("resnet18.safetensors")));
        QFile py(work.filePath("load.py"));
        QVERIFY(py.open(QIODevice::WriteOnly));
        py.write(snippet.toUtf8());
        py.close();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("PYTHONPATH", test::sourcePath("tests/onnx/shim"));
        runProgram("/usr/bin/python3", {py.fileName()}, env, work.path());

        // So do the lines export prints after writing them.
        ExportedModel exported;
        exported.path = weights.toStdString();
        exported.format = ExportFormat::Safetensors;
        exported.card = b.card;
        exported.card.model = "resnet18";
        QString generated;
        for (const QString& line : QString::fromStdString(describe(exported)).split('\n'))
            if (line.startsWith("  "))
                generated += line.mid(2) + '\n';
        QVERIFY2(generated.contains("torchvision.models.resnet18(num_classes=10)"),
                 qPrintable(generated));
        py.remove();
        QVERIFY(py.open(QIODevice::WriteOnly));
        py.write(generated.toUtf8());
        py.close();
        runProgram("/usr/bin/python3", {py.fileName()}, env, work.path());
    }

    // The README's deployment snippets, run as written on an export and an image: each prints
    // the class the engine predicts.
    void readmeDeploySnippetsRun() {
        const QString opencv = readmeSnippet("deploy:opencv");
        const QString ort = readmeSnippet("deploy:onnxruntime");
        QVERIFY2(!opencv.isEmpty() && !ort.isEmpty(), "the README lost its deployment snippets");

        QTemporaryDir work;
        Built b = build(caseOf("fmnist-cnn"), m_dir.path());
        exportOnnx(*b.graph, b.card, work.filePath("fmnist.onnx").toStdString());
        // A 28x28 grey image, its bytes (what the Node snippet reads) and the engine's answer.
        std::vector<uint8_t> pixels(28 * 28);
        std::mt19937 rng(5);
        for (auto& p : pixels)
            p = static_cast<uint8_t>(rng() % 256);
        writePng(work.filePath("shirt.png").toStdString(), 28, 28, 1, pixels);
        QFile gray(work.filePath("shirt.gray"));
        QVERIFY(gray.open(QIODevice::WriteOnly));
        gray.write(reinterpret_cast<const char*>(pixels.data()),
                   static_cast<qint64>(pixels.size()));
        gray.close();
        Tensor fed = Tensor::host(Shape{1, 1, 28, 28}, DType::F32);
        for (std::size_t i = 0; i < pixels.size(); ++i)
            fed.data<float>()[i] =
                (static_cast<float>(pixels[i]) / 255.0f - b.card.mean[0]) / b.card.stdDev[0];
        const Tensor logits = hostCopy(*b.backend, b.graph->forward(fed, false));
        int best = 0;
        for (int c = 1; c < 10; ++c)
            if (logits.data<float>()[c] > logits.data<float>()[best])
                best = c;
        const QString expected =
            QString::fromStdString(b.card.classNames[static_cast<std::size_t>(best)]);

        QFile py(work.filePath("deploy.py"));
        QVERIFY(py.open(QIODevice::WriteOnly));
        py.write(opencv.toUtf8());
        py.close();
        if (m_python["mlp"].toObject()["opencv"].toObject().contains("unavailable")) {
            qInfo("OpenCV snippet not run: python3-opencv is not installed");
        } else {
            const QString out = QString::fromUtf8(
                runProgram("/usr/bin/python3", {py.fileName()},
                           QProcessEnvironment::systemEnvironment(), work.path()));
            QCOMPARE(out.trimmed(), expected);
        }
        if (!m_ortSkip.isEmpty())
            QSKIP(qPrintable("the ONNX Runtime snippet not run: " + m_ortSkip));
        QFile js(work.filePath("deploy.js"));
        QVERIFY(js.open(QIODevice::WriteOnly));
        js.write(ort.toUtf8());
        js.close();
        const QString out =
            QString::fromUtf8(runProgram("node", {js.fileName()}, nodeEnvironment(), work.path()));
        QCOMPARE(out.trimmed(), QString::number(best));
    }

private:
    // The code block after <!-- marker --> in the README.
    static QString readmeSnippet(const QString& marker) {
        QFile readme(test::sourcePath("README.md"));
        if (!readme.open(QIODevice::ReadOnly))
            return {};
        const QRegularExpression re("<!-- " + marker + " -->\\s*```\\w*\\n(.*?)```",
                                    QRegularExpression::DotMatchesEverythingOption);
        const QRegularExpressionMatch m = re.match(QString::fromUtf8(readme.readAll()));
        return m.hasMatch() ? m.captured(1) : QString();
    }

    static void zooRows() {
        QTest::addColumn<QString>("tag");
        for (const ZooCase& c : zooCases())
            QTest::newRow(c.tag) << QString(c.tag);
    }

    static const ZooCase& caseOf(const QString& tag) {
        for (const ZooCase& c : zooCases())
            if (tag == c.tag)
                return c;
        throw std::runtime_error("no case " + tag.toStdString());
    }

    static void verifyAgreement(const QJsonObject& r) {
        QVERIFY2(!r.contains("error"), qPrintable(r["error"].toString()));
        QVERIFY2(r.contains("relative_error"), "no result");
        qInfo("relative error %.2e", r["relative_error"].toDouble());
        QVERIFY2(r["relative_error"].toDouble() < 1e-4,
                 qPrintable(QString("relative error %1").arg(r["relative_error"].toDouble())));
        QVERIFY(r["top1_agree"].toBool());
    }

    template <typename F> static void expectRefusal(F&& f, const std::vector<std::string>& words) {
        try {
            f();
        } catch (const Error& e) {
            for (const std::string& w : words)
                QVERIFY2(std::string(e.what()).find(w) != std::string::npos,
                         qPrintable(
                             QString("'%1' lacks '%2'").arg(e.what(), QString::fromStdString(w))));
            return;
        }
        QFAIL("accepted");
    }
};

QTEST_GUILESS_MAIN(TestOnnx)
#include "tst_onnx.moc"

// model.pretrained: torchvision's own ResNets (saved by Debian's PyTorch) load into the zoo's by
// name, strictly, from .pth and .safetensors, and then compute what torchvision computes;
// PyTorch's wrappers (DistributedDataParallel's module., Lightning's state_dict/model.) come
// off; another class count gets a new head; TrainBench's own checkpoints load; a wrong shape,
// integer values for a weight, a strict mismatch and a missing file are refused by name.
#include "train/pretrained.h"

#include "backend/cpu/cpubackend.h"
#include "core/errors.h"
#include "io/safetensors.h"
#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "support/layouttensors.h"
#include "support/testdata.h"
#include "support/torchreference.h"
#include "train/pretrainedinput.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace tb;
using test::hostStateOf;
using test::sameValues;

namespace {

constexpr int kClasses = 10;

QString refusalOf(const std::string& path, Graph& graph, bool strict = false) {
    try {
        loadPretrained(path, graph, strict);
    } catch (const ConfigError& e) {
        if (e.field() != "model.pretrained")
            return "wrong field: " + QString::fromStdString(e.field());
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestPretrained : public QObject {
    Q_OBJECT
private slots:
    // torchvision's models saved once for every test, by one process (PyTorch loads once).
    void initTestCase() {
        m_backend = createCpuBackend(2);
        // The convolutions computed as PyTorch's CPU computes them, so that what the gradients'
        // distance from float64 measures is the model, not Winograd's extra roundings (which
        // tst_cpu_winograd and tst_float64_trajectory bound).
        m_backend->setConvAlgorithm(ConvAlgorithm::Direct);
        if (torchvisionMissing().isEmpty())
            test::runTorchScript("torchvision_reference.py",
                                 {"save", m_dir.path(), QString::number(kClasses), "resnet18",
                                  "resnet34", "resnet50", "mobilenet_v2", "vgg11_bn",
                                  "fcn_resnet50", "deeplabv3_resnet50", "--wrapped", "resnet18"});
    }

    // The .pth torch.save wrote, and safetensors of the same tensors: every tensor of the model
    // found, none left over (num_batches_tracked set aside), and then evaluation logits and
    // training gradients within float32 noise of torchvision's in float64.
    void torchvisionModelsLoadAndAgree_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("size");
        QTest::newRow("resnet18") << "resnet18" << 64;
        QTest::newRow("resnet34") << "resnet34" << 32;
        QTest::newRow("resnet50") << "resnet50" << 64;
        QTest::newRow("mobilenet_v2") << "mobilenet_v2" << 32;
        // At 32 px its adaptive pooling repeats a 1 x 1 map into 7 x 7; at 48 px, 1 x 1 too,
        // so 64 px (2 x 2 into 7 x 7: overlapping bins) is the one that tests the bins.
        QTest::newRow("vgg11_bn") << "vgg11_bn" << 64;
    }
    void torchvisionModelsLoadAndAgree() {
        QFETCH(QString, model);
        QFETCH(int, size);
        if (const QString why = torchvisionMissing(); !why.isEmpty())
            QSKIP(qPrintable(why));
        const QString dir = m_dir.path();
        const std::string name = model.toStdString();
        const Shape input{3, size, size};
        // No dropout (MobileNetV2's head has one): both sides then compute the same training
        // pass, as the reference script's models do.
        nlohmann::json spec = modelSpec(name, input, kClasses);
        for (auto& layer : spec["layers"])
            if (layer["type"] == "dropout")
                layer["p"] = 0.0;
        Graph graph(spec, *m_backend, DType::F32, 1);

        const PretrainedLoad fromPth =
            loadPretrained((dir + "/" + model + ".pth").toStdString(), graph, true);
        QVERIFY(fromPth.missing.empty() && fromPth.unexpected.empty());
        QVERIFY(fromPth.replacedHead.empty());
        QCOMPARE(fromPth.loaded, static_cast<int64_t>(graph.stateDict().size()));
        QVERIFY(fromPth.ignored > 0); // num_batches_tracked, one per batch norm
        const auto loaded = hostStateOf(*m_backend, graph);

        Graph other(modelSpec(name, input, kClasses), *m_backend, DType::F32, 2);
        loadPretrained((dir + "/" + model + ".safetensors").toStdString(), other, true);
        for (const auto& [key, value] : hostStateOf(*m_backend, other))
            QVERIFY2(sameValues(value, loaded.at(key)), key.c_str());

        const Tensor x = test::randomTensor(input.withBatch(4), 7);
        Tensor y = Tensor::host({4}, DType::I32);
        for (int i = 0; i < 4; ++i)
            y.data<int32_t>()[i] = (3 * i + 1) % kClasses;
        std::vector<SafetensorsEntry> entries{{"x", x}, {"y", y}};
        entries.push_back({"logits", test::toHostF32(*m_backend, graph.forward(x, false))});
        Tensor loss = m_backend->empty({2}, DType::F32);
        m_backend->fill(loss, 0.0f);
        graph.zeroGrad();
        const Tensor& logits = graph.forward(x, true);
        m_backend->softmaxCrossEntropy(logits, y, 0.0f, loss, &graph.logitsGrad(), nullptr, 1.0f);
        graph.backward(graph.logitsGrad());
        agreesWithTorchvision(graph, entries, dir, model, size, "logits");
    }

    // torchvision's segmentation models with their auxiliary heads, from its state dict,
    // strictly: the evaluation scores (output["out"], resized to the image) and the gradients of
    // its reference training loss (the per-pixel cross-entropy, VOC's 255 left out, plus half
    // the auxiliary head's). 96 px puts layer4's map at 12 x 12, so ASPP's rate-12 taps read it;
    // at 64 px FCN's head normalises an 8 x 8 map whose channel means are far above their
    // spread, float32 leaves 5e-5 of noise on values a ReLU then cuts at 0, and which few of
    // them flip sign is luck (PyTorch's own float32 flips one there: the comparison is then of
    // flips, not of arithmetic).
    void segmentationModelsLoadAndAgree_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("size");
        QTest::newRow("fcn_resnet50") << "fcn_resnet50" << 96;
        QTest::newRow("deeplabv3_resnet50") << "deeplabv3_resnet50" << 96;
    }
    void segmentationModelsLoadAndAgree() {
        QFETCH(QString, model);
        QFETCH(int, size);
        if (const QString why = torchvisionMissing(); !why.isEmpty())
            QSKIP(qPrintable(why));
        const QString dir = m_dir.path();
        const Shape input{3, size, size};
        nlohmann::json spec = modelSpec(model.toStdString(), input, kClasses, {{"aux_loss", true}});
        for (auto& layer : spec["layers"])
            if (layer["type"] == "dropout")
                layer["p"] = 0.0;
        Graph graph(spec, *m_backend, DType::F32, 1);
        QVERIFY(graph.pixelLogits());
        QCOMPARE(graph.auxiliaryOutputs().size(), std::size_t{1});
        const PretrainedLoad load =
            loadPretrained((dir + "/" + model + ".pth").toStdString(), graph, true);
        QCOMPARE(load.loaded, static_cast<int64_t>(graph.stateDict().size()));

        constexpr int64_t kBatch = 2;
        const Tensor x = test::randomTensor(input.withBatch(kBatch), 7);
        Tensor y = Tensor::host({kBatch, size, size}, DType::I32);
        int64_t counted = 0;
        for (int64_t i = 0; i < y.numel(); ++i) {
            const bool border = i % 13 == 0;
            y.data<int32_t>()[i] = border ? 255 : static_cast<int32_t>((i / 37) % kClasses);
            counted += border ? 0 : 1;
        }
        std::vector<SafetensorsEntry> entries{{"x", x}, {"y", y}};
        entries.push_back({"logits", test::toHostF32(*m_backend, graph.forward(x, false))});
        Tensor loss = m_backend->empty({2}, DType::F32);
        m_backend->fill(loss, 0.0f);
        graph.zeroGrad();
        const Tensor& logits = graph.forward(x, true);
        m_backend->pixelCrossEntropy(logits, y, 255, counted, loss, &graph.logitsGrad(), nullptr,
                                     1.0f);
        m_backend->pixelCrossEntropy(graph.auxiliaryLogits(0), y, 255, counted, loss,
                                     &graph.auxiliaryGrad(0), nullptr,
                                     1.0f / graph.auxiliaryOutputs()[0].weight);
        graph.backward(graph.logitsGrad(), true);
        agreesWithTorchvision(graph, entries, dir, model, size, "scores");
    }

    // The segmentation models' backbone starts from a classifier's ResNet-50 (torchvision's
    // weights_backbone): its names found under "backbone.", its fc left over, the heads new.
    void segmentationBackboneFromClassifier() {
        if (const QString why = torchvisionMissing(); !why.isEmpty())
            QSKIP(qPrintable(why));
        const QString path = m_dir.path() + "/resnet50.pth";
        const Shape input{3, 64, 64};
        Graph classifier(modelSpec("resnet50", input, kClasses), *m_backend, DType::F32, 1);
        loadPretrained(path.toStdString(), classifier, true);
        const auto expected = hostStateOf(*m_backend, classifier);
        Graph fcn(modelSpec("fcn_resnet50", input, 3), *m_backend, DType::F32, 1);
        const PretrainedLoad load = loadPretrained(path.toStdString(), fcn, false);
        QCOMPARE(load.modelPrefix, std::string("backbone."));
        QCOMPARE(load.unexpected, (std::vector<std::string>{"fc.bias", "fc.weight"}));
        QCOMPARE(load.loaded, static_cast<int64_t>(expected.size()) - 2);
        for (const std::string& name : load.missing)
            QVERIFY2(name.starts_with("classifier."), name.c_str());
        const auto state = hostStateOf(*m_backend, fcn);
        for (const auto& [key, value] : expected)
            if (!key.starts_with("fc."))
                QVERIFY2(sameValues(state.at("backbone." + key), value), key.c_str());
        QVERIFY(QString::fromStdString(describePretrained(load)[0]).contains("backbone."));
    }

    // Names as PyTorch users have them: under "module." (DistributedDataParallel) and under
    // "state_dict.model." beside an epoch and optimizer state (Lightning) load the same values.
    void wrappedNamesLoad() {
        if (const QString why = torchvisionMissing(); !why.isEmpty())
            QSKIP(qPrintable(why));
        const QString dir = m_dir.path();
        const Shape input{3, 32, 32};
        Graph plain(modelSpec("resnet18", input, kClasses), *m_backend, DType::F32, 1);
        loadPretrained((dir + "/resnet18.pth").toStdString(), plain, true);
        const auto expected = hostStateOf(*m_backend, plain);
        for (const auto& [file, prefix] :
             {std::pair{"resnet18-ddp.pth", "module."},
              std::pair{"resnet18-lightning.pth", "state_dict.model."}}) {
            Graph g(modelSpec("resnet18", input, kClasses), *m_backend, DType::F32, 5);
            const PretrainedLoad load = loadPretrained((dir + "/" + file).toStdString(), g, true);
            QCOMPARE(load.prefix, std::string(prefix));
            for (const auto& [key, value] : hostStateOf(*m_backend, g))
                QVERIFY2(sameValues(value, expected.at(key)), (file + (": " + key)).c_str());
        }
    }

    // ImageNet's 1000 classes into a 10-class model: the backbone loads, the head keeps a fresh
    // initialisation (the same as without weights), and the log says what changed.
    void anotherClassCountGetsANewHead() {
        if (const QString why = torchvisionMissing(); !why.isEmpty())
            QSKIP(qPrintable(why));
        const QString dir = m_dir.path();
        const Shape input{3, 32, 32};
        Graph fresh(modelSpec("resnet18", input, kClasses), *m_backend, DType::F32, 9);
        const auto initial = hostStateOf(*m_backend, fresh);
        Graph g(modelSpec("resnet18", input, kClasses), *m_backend, DType::F32, 9);
        const PretrainedLoad load =
            loadPretrained((dir + "/resnet18-imagenet.pth").toStdString(), g, false);
        QCOMPARE(load.replacedHead,
                 std::string("fc: bias 1000 in the file, 10 here, weight 1000x512 in the file, "
                             "10x512 here"));
        QCOMPARE(load.loaded, static_cast<int64_t>(g.stateDict().size()) - 2);
        const auto state = hostStateOf(*m_backend, g);
        QVERIFY(sameValues(state.at("fc.weight"), initial.at("fc.weight")));
        QVERIFY(!sameValues(state.at("conv1.weight"), initial.at("conv1.weight")));
        const std::vector<std::string> log = describePretrained(load);
        QVERIFY(QString::fromStdString(log[0]).contains("the head is new"));
    }

    // A checkpoint TrainBench wrote (weights beside optimizer state) starts another run.
    // Weights fed other images than they learned from are named: torchvision's (any .pth) saw
    // 224 px RGB with ImageNet's statistics; a TrainBench checkpoint says what its run used.
    void inputMismatchesAreNamed() {
        RunConfig config;
        config.set("dataset", "imagefolder");
        config.set("data.image_size", "64");
        const Shape photos{3, 64, 64};
        QVERIFY(pretrainedInputWarnings(config, photos).empty()); // no pretrained weights
        config.set("model.pretrained", "resnet18.pth"); // not read: a PyTorch file is ImageNet's
        auto warnings = pretrainedInputWarnings(config, photos);
        QCOMPARE(warnings.size(), std::size_t{1});
        QVERIFY2(QString::fromStdString(warnings[0])
                         .contains("learned from 224 px images; this run gives them 64 px") &&
                     QString::fromStdString(warnings[0]).contains("data.image_size=224"),
                 warnings[0].c_str());
        QVERIFY(pretrainedInputWarnings(config, Shape{3, 200, 200}).empty()); // auto: ImageNet's
        config.set("data.norm_stats", "dataset");
        warnings = pretrainedInputWarnings(config, Shape{3, 224, 224});
        QCOMPARE(warnings.size(), std::size_t{1});
        QVERIFY2(QString::fromStdString(warnings[0])
                     .contains("ImageNet's mean and std; this run "
                               "uses their dataset's own"),
                 warnings[0].c_str());

        // A checkpoint of a CIFAR-10 run, normalised with its own statistics, at 32 px.
        RunConfig cifar;
        cifar.set("dataset", "cifar10");
        const std::string path = (m_dir.path() + "/cifar-run.safetensors").toStdString();
        writeSafetensors(path, {{"fc.weight", Tensor::host({2, 2}, DType::F32)}},
                         {{"config", cifar.toJson().dump()}, {"run_id", "run-7"}});
        RunConfig tune;
        tune.set("dataset", "imagefolder");
        tune.set("model.pretrained", path);
        tune.set("data.norm_stats", "dataset");
        QVERIFY(pretrainedInputWarnings(tune, Shape{3, 32, 32}).empty());
        warnings = pretrainedInputWarnings(tune, Shape{3, 96, 96});
        QCOMPARE(warnings.size(), std::size_t{1});
        QVERIFY2(QString::fromStdString(warnings[0]).contains("run run-7 learned from 32 px"),
                 warnings[0].c_str());
        // A detector's PyTorch file is Ultralytics' COCO weights: 640 px, pixels over 255. At
        // 640 px nothing is said; at 64 px the scale, with the key that matches it.
        RunConfig detector;
        detector.set("dataset", "shapes-detect");
        detector.set("model.pretrained", "yolov8n.pth");
        QVERIFY(pretrainedInputWarnings(detector, Shape{3, 640, 640}).empty());
        detector.set("data.imgsz", "64");
        warnings = pretrainedInputWarnings(detector, Shape{3, 64, 64});
        QCOMPARE(warnings.size(), std::size_t{1});
        QVERIFY2(QString::fromStdString(warnings[0])
                         .contains("Ultralytics' COCO weights learned from 640 px images") &&
                     QString::fromStdString(warnings[0]).contains("data.imgsz=640"),
                 warnings[0].c_str());
        // A file that cannot be read warns of nothing: loading it says what is wrong.
        tune.set("model.pretrained", (m_dir.path() + "/missing.safetensors").toStdString());
        QVERIFY(pretrainedInputWarnings(tune, Shape{3, 96, 96}).empty());
    }

    void ownCheckpointLoads() {
        const Shape input{1, 28, 28};
        Graph source(modelSpec("fmnist-cnn", input, kClasses), *m_backend, DType::F32, 3);
        std::vector<SafetensorsEntry> entries;
        for (const auto& [key, value] : hostStateOf(*m_backend, source)) {
            entries.push_back({key, value});
            entries.push_back({"optimizer." + key + ".momentum", value});
        }
        const std::string path = (m_dir.path() + "/own.safetensors").toStdString();
        writeSafetensors(path, entries, {{"position", "{}"}});
        Graph g(modelSpec("fmnist-cnn", input, kClasses), *m_backend, DType::F32, 4);
        const PretrainedLoad load = loadPretrained(path, g, true);
        QCOMPARE(load.ignored, static_cast<int64_t>(entries.size() / 2));
        const auto expected = hostStateOf(*m_backend, source);
        for (const auto& [key, value] : hostStateOf(*m_backend, g))
            QVERIFY2(sameValues(value, expected.at(key)), key.c_str());
    }

    // Refusals name the field, the file and the tensor; nothing is half-loaded by a wrong shape.
    void badFilesAreRefusedByName() {
        const Shape input{1, 28, 28};
        Graph g(modelSpec("fmnist-cnn", input, kClasses), *m_backend, DType::F32, 3);
        const auto before = hostStateOf(*m_backend, g);
        const std::string dir = m_dir.path().toStdString();
        QString why = refusalOf(dir + "/absent.pth", g);
        QVERIFY2(why.contains("model.pretrained") && why.contains("absent.pth"), qPrintable(why));

        // PyTorch's format before 1.6 (torch.save(..., _use_new_zipfile_serialization=False)
        // starts with these bytes: a protocol-2 pickle of its magic number) is named, with the
        // one-line fix, not taken for a broken safetensors header.
        {
            std::ofstream legacy(dir + "/legacy.pth", std::ios::binary);
            const unsigned char start[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46,
                                           0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e};
            legacy.write(reinterpret_cast<const char*>(start), sizeof start);
        }
        why = refusalOf(dir + "/legacy.pth", g);
        QVERIFY2(why.contains("legacy.pth") && why.contains("before 1.6") &&
                     why.contains("torch.save(torch.load("),
                 qPrintable(why));

        std::vector<SafetensorsEntry> entries;
        for (const auto& [key, value] : before)
            entries.push_back(
                {key, key == "block2.conv.weight" ? test::randomTensor({3, 3, 3, 3}, 1) : value});
        writeSafetensors(dir + "/shape.safetensors", entries, {});
        const std::string firstKey = before.begin()->first;
        why = refusalOf(dir + "/shape.safetensors", g);
        QVERIFY2(why.contains("block2.conv.weight") && why.contains("3x3x3x3") &&
                     why.contains("64x32x3x3"),
                 qPrintable(why));
        for (const auto& [key, value] : hostStateOf(*m_backend, g))
            QVERIFY2(sameValues(value, before.at(key)), key.c_str());

        entries = {{firstKey, Tensor::host(before.begin()->second.shape(), DType::I32)}};
        writeSafetensors(dir + "/ints.safetensors", entries, {});
        why = refusalOf(dir + "/ints.safetensors", g);
        QVERIFY2(why.contains(QString::fromStdString(firstKey)) && why.contains("i32"),
                 qPrintable(why));

        entries = {{firstKey, before.begin()->second},
                   {"extra.weight", test::randomTensor({2}, 2)}};
        writeSafetensors(dir + "/partial.safetensors", entries, {});
        const PretrainedLoad partial = loadPretrained(dir + "/partial.safetensors", g, false);
        QCOMPARE(partial.loaded, int64_t{1});
        QCOMPARE(partial.unexpected, std::vector<std::string>{"extra.weight"});
        QCOMPARE(partial.missing.size(), before.size() - 1);
        why = refusalOf(dir + "/partial.safetensors", g, true);
        QVERIFY2(why.contains("missing") && why.contains("unexpected extra.weight"),
                 qPrintable(why));

        QFile junk(m_dir.filePath("junk.pth"));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("PK\x03\x04 not really a zip");
        junk.close();
        why = refusalOf(junk.fileName().toStdString(), g);
        QVERIFY2(why.contains("junk.pth"), qPrintable(why));
    }

private:
    // After a forward and backward of `graph`: its gradients join `entries` (the input, the
    // labels, the evaluation outputs as "logits"), and torchvision_reference.py compares them
    // with torchvision's from the same state dict: the outputs within float32 of float64, every
    // gradient within 10x PyTorch's own float32 error (a wrong name, shape or layer puts it near
    // 1). `outputs` names them in the log line.
    void agreesWithTorchvision(Graph& graph, std::vector<SafetensorsEntry> entries,
                               const QString& dir, const QString& model, int size,
                               const char* outputs) {
        for (Layer* layer : graph.layers())
            for (Param* p : layer->params())
                entries.push_back({"grad." + layer->name() + "." + p->name,
                                   test::toHostF32(*m_backend, p->grad)});
        writeSafetensors((dir + "/ours.safetensors").toStdString(), entries, {});
        const QJsonObject r = test::runTorchScript(
            "torchvision_reference.py", {"compare", dir, model, QString::number(kClasses)});
        const double gradError = r["worst_gradient_error"].toDouble();
        const double torchNoise = r["worst_gradient_torch32_error"].toDouble();
        qInfo("%s at %d px: %s within %.2g of torchvision's in float64 (relative); of %d "
              "gradients, the farthest against float32's noise is %s: %.2g (PyTorch's float32: "
              "%.2g)",
              qPrintable(model), size, outputs, r["logits_error"].toDouble(),
              r["gradients"].toInt(), qPrintable(r["worst_gradient"].toString()), gradError,
              torchNoise);
        QCOMPARE(r["missing_gradients"].toArray().size(), 0);
        QVERIFY(r["logits_error"].toDouble() < 1e-5);
        QVERIFY(gradError < 10 * torchNoise + 1e-4);
    }

    // Why the comparisons with torchvision cannot run, or empty; asked once. (QSKIP must be in
    // the test function itself: from a helper it would return only from the helper.)
    static QString torchvisionMissing() {
        static const QString why = [] {
            if (const QString torch = test::torchUnavailableReason(); !torch.isEmpty())
                return torch;
            if (QProcess::execute("/usr/bin/python3", {"-c", "import torchvision"}) != 0)
                return QStringLiteral("torchvision is not installed for /usr/bin/python3 "
                                      "(python3-torchvision)");
            return QString();
        }();
        return why;
    }

    std::unique_ptr<Backend> m_backend;
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestPretrained)
#include "tst_pretrained.moc"

// finetune.freeze and finetune.head_lr_mult: what the mechanics guarantee. Frozen layers' weights
// and batch-norm running statistics are bit-identical after training steps while the rest trains;
// only the trainable parameters reach the optimizer, and the memory estimate drops the frozen
// ones' gradients and optimizer state; a name the model lacks and a frozen layer after a trained
// one are refused. The head's parameter group moves at its multiple of the rate and the rest as
// without it; a checkpoint resumes only with the parameters it trained.
#include "backend/cpu/cpubackend.h"
#include "core/errors.h"
#include "nn/finetune.h"
#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "optim/optimizer.h"
#include "support/layouttensors.h"
#include "support/testdata.h"
#include "train/checkpointer.h"
#include "train/memoryestimate.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>

using namespace tb;
using test::hostStateOf;
using test::sameValues;

namespace {

nlohmann::json frozenSpec(const std::string& freeze) {
    return modelSpec("fmnist-cnn", {1, 28, 28}, 10, {{"freeze", freeze}});
}

// `steps` SGD steps at lr 0.1 on random batches, in training mode.
void train(Backend& backend, Graph& graph, Optimizer& optimizer, int steps) {
    Tensor loss = backend.empty({2}, DType::F32);
    for (int step = 0; step < steps; ++step) {
        const Tensor x = test::randomTensor({16, 1, 28, 28}, 40 + static_cast<uint64_t>(step));
        Tensor y = Tensor::host({16}, DType::I32);
        for (int i = 0; i < 16; ++i)
            y.data<int32_t>()[i] = (i + step) % 10;
        graph.zeroGrad();
        const Tensor& logits = graph.forward(x, true);
        backend.fill(loss, 0.0f);
        backend.softmaxCrossEntropy(logits, y, 0.0f, loss, &graph.logitsGrad(), nullptr, 1.0f);
        graph.backward(graph.logitsGrad());
        optimizer.step(0.1f, nullptr, nullptr);
    }
}

// The same with momentum 0.9, one group.
void train(Backend& backend, Graph& graph, int steps) {
    OptimizerConfig oc;
    oc.momentum = 0.9f;
    Optimizer optimizer(backend, graph.params(), oc);
    train(backend, graph, optimizer, steps);
}

std::vector<std::string> groupNames(const std::vector<ParamGroup>& groups) {
    std::vector<std::string> names;
    for (const ParamGroup& g : groups)
        names.push_back(g.name + ":" + std::to_string(g.params.size()));
    return names;
}

} // namespace

class TestFinetune : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { m_backend = createCpuBackend(2); }

    // freeze: the layers that must not move, and one that must.
    void frozenLayersKeepTheirWeights_data() {
        QTest::addColumn<QString>("freeze");
        QTest::addColumn<QStringList>("frozen");
        QTest::addColumn<QString>("trained");
        QTest::newRow("backbone") << "backbone"
                                  << QStringList{"block1.conv", "block1.bn", "block2.conv",
                                                 "block2.bn", "fc1"}
                                  << "fc2";
        QTest::newRow("up to block2.bn")
            << "block2.bn" << QStringList{"block1.conv", "block1.bn", "block2.conv", "block2.bn"}
            << "fc1";
    }
    void frozenLayersKeepTheirWeights() {
        QFETCH(QString, freeze);
        QFETCH(QStringList, frozen);
        QFETCH(QString, trained);
        Graph graph(frozenSpec(freeze.toStdString()), *m_backend, DType::F32, 1);
        const auto before = hostStateOf(*m_backend, graph);
        train(*m_backend, graph, 3);
        const auto after = hostStateOf(*m_backend, graph);
        int checked = 0;
        for (const auto& [name, value] : before) {
            const QString layer = QString::fromStdString(name).section('.', 0, -2);
            if (frozen.contains(layer)) {
                QVERIFY2(sameValues(value, after.at(name)), name.c_str());
                ++checked;
            }
        }
        QVERIFY(checked >= 2 * frozen.size()); // running statistics included
        QVERIFY(!sameValues(before.at(trained.toStdString() + ".weight"),
                            after.at(trained.toStdString() + ".weight")));
        // The layers with weights, as listed; the layer table says the same.
        for (Layer* layer : graph.layers())
            if (!layer->params().empty())
                QCOMPARE(layer->frozen(), frozen.contains(QString::fromStdString(layer->name())));
        for (const LayerRow& row : graph.summary(1))
            if (row.params > 0)
                QCOMPARE(row.frozen, frozen.contains(QString::fromStdString(row.name)));
    }

    // Only what trains reaches the optimizer, and is counted for gradients and momentum.
    void frozenParametersCostNoGradientOrOptimizerMemory() {
        Graph all(frozenSpec("none"), *m_backend, DType::F32, 1);
        Graph head(frozenSpec("backbone"), *m_backend, DType::F32, 1);
        QCOMPARE(head.parameterCount(), all.parameterCount());
        QCOMPARE(head.trainableParameterCount(), int64_t{128 * 10 + 10});
        QCOMPARE(head.params().size(), std::size_t{2});
        OptimizerConfig sgd;
        sgd.momentum = 0.9f;
        const MemoryEstimate e = estimateTrainingMemory(head, 32, sgd);
        QCOMPARE(e.gradients, int64_t{(128 * 10 + 10) * 4});
        QCOMPARE(e.optimizerState, e.gradients);
        QCOMPARE(e.weights, estimateTrainingMemory(all, 32, sgd).weights);
        // Planned from the spec alone (the window's memory bar), the same.
        const MemoryEstimate planned =
            estimateTrainingMemory(frozenSpec("backbone"), DType::F32, 32, sgd);
        QCOMPARE(planned.gradients, e.gradients);
        QCOMPARE(planned.activationGradients, e.activationGradients);
    }

    void aLayerTheModelLacksIsRefused() {
        try {
            frozenSpec("block9.conv");
            QFAIL("no error");
        } catch (const ConfigError& e) {
            QCOMPARE(e.field(), std::string("finetune.freeze"));
            QVERIFY2(QString(e.what()).contains("block9.conv"), e.what());
        }
    }

    // A spec of one's own that freezes a layer after one that trains.
    void aFrozenLayerAfterATrainedOneIsRefused() {
        nlohmann::json spec = frozenSpec("none");
        spec["layers"][4]["frozen"] = true; // block2.conv, after block1's trained layers
        try {
            Graph graph(spec, *m_backend, DType::F32, 1);
            QFAIL("no error");
        } catch (const ConfigError& e) {
            QCOMPARE(e.field(), std::string("model"));
            QVERIFY2(QString(e.what()).contains("block2.conv") &&
                         QString(e.what()).contains("freeze only a model's first layers"),
                     e.what());
        }
    }

    // Body and head groups: the head is the last layer that trains, whatever is frozen.
    void theHeadIsTheLastLayerThatTrains() {
        Graph all(frozenSpec("none"), *m_backend, DType::F32, 1);
        QCOMPARE(groupNames(fineTuneParamGroups(all, 1.0f)), std::vector<std::string>{"all:10"});
        const auto groups = fineTuneParamGroups(all, 10.0f);
        QCOMPARE(groupNames(groups), (std::vector<std::string>{"body:8", "head:2"}));
        QCOMPARE(groups[1].lrMult, 10.0f);
        QCOMPARE(groups[1].params[0], all.layer("fc2")->params()[0]);
        Graph head(frozenSpec("backbone"), *m_backend, DType::F32, 1);
        QCOMPARE(groupNames(fineTuneParamGroups(head, 10.0f)), std::vector<std::string>{"head:2"});
        QCOMPARE(describeParamGroups(fineTuneParamGroups(all, 10.0f), 10.0f),
                 std::string("finetune.head_lr_mult=10: the classifier head's 1,290 parameters "
                             "learn at 10x lr, the other 420,448 that train at lr"));
    }

    // One plain SGD step from the same weights: the body moves exactly as with one group, the
    // head ten times as far.
    void theHeadMovesAtItsMultiple() {
        OptimizerConfig plain;
        plain.momentum = 0.0f;
        Graph base(frozenSpec("none"), *m_backend, DType::F32, 1);
        Graph tuned(frozenSpec("none"), *m_backend, DType::F32, 1);
        const auto before = hostStateOf(*m_backend, base);
        Optimizer baseOpt(*m_backend, fineTuneParamGroups(base, 1.0f), plain);
        Optimizer tunedOpt(*m_backend, fineTuneParamGroups(tuned, 10.0f), plain);
        train(*m_backend, base, baseOpt, 1);
        train(*m_backend, tuned, tunedOpt, 1);
        const auto baseAfter = hostStateOf(*m_backend, base);
        const auto tunedAfter = hostStateOf(*m_backend, tuned);
        for (const auto& [name, value] : before) {
            if (name.rfind("fc2.", 0) != 0) {
                QVERIFY2(sameValues(baseAfter.at(name), tunedAfter.at(name)), name.c_str());
                continue;
            }
            const float* b0 = value.data<float>();
            const float* b1 = baseAfter.at(name).data<float>();
            const float* t1 = tunedAfter.at(name).data<float>();
            double moved = 0.0;
            for (int64_t i = 0; i < value.numel(); ++i) {
                const double expected = 10.0 * (double(b1[i]) - b0[i]);
                QVERIFY2(std::abs((double(t1[i]) - b0[i]) - expected) <=
                             1e-4 * std::abs(expected) + 1e-6,
                         name.c_str());
                moved += std::abs(expected);
            }
            QVERIFY(moved > 0.0);
        }
    }

    // The optimizer's state is by parameter: a checkpoint resumes under another multiplier but
    // not with other layers frozen, and says why.
    void aCheckpointResumesOnlyWithTheParametersItTrained() {
        QTemporaryDir dir;
        RunConfig config;
        Checkpointer checkpointer(config, "finetune-test", dir.path().toStdString());
        OptimizerConfig sgd;
        Graph saved(frozenSpec("block1.bn"), *m_backend, DType::F32, 1);
        Optimizer savedOpt(*m_backend, fineTuneParamGroups(saved, 10.0f), sgd);
        const std::string path = checkpointer.save(Position{}, saved, savedOpt, nullptr, false);

        Graph same(frozenSpec("block1.bn"), *m_backend, DType::F32, 1);
        Optimizer otherMult(*m_backend, fineTuneParamGroups(same, 5.0f), sgd);
        checkpointer.load(path, same, otherMult, nullptr);

        Graph other(frozenSpec("backbone"), *m_backend, DType::F32, 1);
        Optimizer otherOpt(*m_backend, fineTuneParamGroups(other, 10.0f), sgd);
        try {
            checkpointer.load(path, other, otherOpt, nullptr);
            QFAIL("no error");
        } catch (const DatasetError& e) {
            QVERIFY2(QString(e.what()).contains("trained 7 parameter tensors, this run trains 2") &&
                         QString(e.what()).contains("finetune.freeze"),
                     e.what());
        }
    }

private:
    std::unique_ptr<Backend> m_backend;
};

QTEST_GUILESS_MAIN(TestFinetune)
#include "tst_finetune.moc"

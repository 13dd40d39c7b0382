// The training memory estimate against what the CPU backend's allocator really held at the peak
// of two training steps, for every zoo model: weights, gradients, optimizer state, activations
// and gradient buffers are all allocated through Backend::empty, which the CPU backend counts.
#include "train/memoryestimate.h"
#include "train/modelplan.h"

#include "backend/devices.h"
#include "core/errors.h"
#include "core/processmemory.h"
#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "optim/optimizer.h"
#include "support/testdata.h"
#include "train/detectionobjective.h"
#include "train/stepbench.h"

#include <QtTest>

using namespace tb;

class TestMemoryEstimate : public QObject {
    Q_OBJECT
private slots:
    void matchesTheAllocatorsPeak_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("optimizer");
        QTest::addColumn<QString>("options"); // model options, JSON
        for (const auto& m : modelZoo())
            QTest::newRow((m.name + "-sgd").c_str()) << QString::fromStdString(m.name) << "sgd"
                                                     << "{}";
        QTest::newRow("resnet20-adamw") << "resnet20"
                                        << "adamw"
                                        << "{}";
        // torchvision's recipe: the auxiliary head's scores and gradient buffer too.
        QTest::newRow("deeplabv3_resnet50-aux") << "deeplabv3_resnet50"
                                                << "sgd"
                                                << R"({"aux_loss": true})";
    }
    void matchesTheAllocatorsPeak() {
        QFETCH(QString, model);
        QFETCH(QString, optimizer);
        QFETCH(QString, options);
        const int64_t batch = 32;
        auto backend = createCpuBackend(2);
        const Shape sample = test::testSampleShape(zooInputShape(model.toStdString(), {1, 28, 28}));
        const nlohmann::json modelOptions = nlohmann::json::parse(options.toStdString());
        const auto specOf = [&] {
            return modelSpec(model.toStdString(), sample, 10, modelOptions);
        };
        Graph graph(specOf(), *backend, DType::F32, 0);
        OptimizerConfig oc;
        oc.name = optimizer.toStdString();
        const MemoryEstimate e = estimateTrainingMemory(graph, batch, oc);
        // Planned from the spec on the meta backend, before anything is allocated: the same.
        const MemoryEstimate planned = estimateTrainingMemory(specOf(), DType::F32, batch, oc);
        QCOMPARE(planned.weights, e.weights);
        QCOMPARE(planned.gradients, e.gradients);
        QCOMPARE(planned.optimizerState, e.optimizerState);
        QCOMPARE(planned.activations, e.activations);
        QCOMPARE(planned.activationGradients, e.activationGradients);
        // ModelPlan's layer table (summary, the window's model panel) is the real graph's.
        const ModelPlan plan(specOf(), DType::F32);
        const auto planRows = plan.layers(batch), rows = graph.summary(batch);
        QCOMPARE(planRows.size(), rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            QCOMPARE(planRows[i].name, rows[i].name);
            QVERIFY(planRows[i].output == rows[i].output);
            QCOMPARE(planRows[i].params, rows[i].params);
            QCOMPARE(planRows[i].flops, rows[i].flops);
        }

        Optimizer opt(*backend, graph.params(), oc);
        Tensor x = backend->empty(sample.withBatch(batch), DType::F32);
        backend->fill(x, 0.5f);
        // A language model predicts (and is scored) at every position.
        const Shape labels = graph.positions() > 1 ? Shape{batch, graph.positions()} : Shape{batch};
        Tensor y = backend->empty(labels, DType::I32);
        backend->fill(y, 1.0f);
        Tensor loss = backend->empty({2}, DType::F32);
        const int64_t inputs = static_cast<int64_t>(x.bytes() + y.bytes() + loss.bytes());
        // A detector learns boxes (host rows; its loss runs on the host, outside the peak).
        std::unique_ptr<DetectionObjective> detection;
        Tensor boxes;
        if (graph.detectHead()) {
            detection = std::make_unique<DetectionObjective>(*graph.detectHead(), sample[1]);
            boxes = syntheticBoxRows(batch, sample[1], 10, 1);
        }
        graph.zeroGrad();
        for (int step = 0; step < 2; ++step)
            trainingStep(graph, opt, nullptr, x, detection ? boxes : y, loss, 0.01f,
                         detection.get());
        const auto measured = static_cast<int64_t>(backend->memoryStats().peakInUse) - inputs;
        const double ratio = static_cast<double>(e.total()) / static_cast<double>(measured);
        qInfo("%s: estimate %.2f MiB (weights %.2f, grads %.2f, optimizer %.2f, activations "
              "%.2f, activation grads %.2f), measured %.2f MiB, ratio %.3f",
              qPrintable(model), e.total() / 1048576.0, e.weights / 1048576.0,
              e.gradients / 1048576.0, e.optimizerState / 1048576.0, e.activations / 1048576.0,
              e.activationGradients / 1048576.0, measured / 1048576.0, ratio);
        // Measured over the zoo: 0.97 (mlp: small per-layer scratch) to 0.999; yolov8n 0.948,
        // inside detection's goal of 10% (scratch of its joins and splits not yet attributed);
        // unet 0.945 (its joins', resizes' and the per-pixel loss's scratch, likewise).
        const double lowest = graph.detectHead() || graph.pixelLogits() ? 0.90 : 0.95;
        QVERIFY2(ratio > lowest && ratio < 1.02, qPrintable(QString::number(ratio)));
    }

    // A model no machine holds is planned without allocating it: about 2^38 parameters in layers
    // within the spec's size limits (1 TiB of f32 weights, 3 TiB with gradients and momentum)
    // cost no memory on the meta backend, and the check against the host memory refuses it.
    void plansAModelTooLargeToAllocate() {
        const nlohmann::json spec = {{"input", {1, 2, 2}},
                                     {"classes", 8},
                                     {"layers",
                                      {{{"type", "flatten"}},
                                       {{"type", "linear"}, {"out_features", int64_t{1} << 24}},
                                       {{"type", "linear"}, {"out_features", int64_t{1} << 14}},
                                       {{"type", "linear"}, {"out_features", 8}}}}};
        const uint64_t peakBefore = processPeakRssBytes().value_or(0);
        const MemoryEstimate e = estimateTrainingMemory(spec, DType::F32, 1, OptimizerConfig{});
        QVERIFY(processPeakRssBytes().value_or(0) - peakBefore < (uint64_t{64} << 20));
        const int64_t wide = int64_t{1} << 24, narrow = int64_t{1} << 14;
        const int64_t params = (4 + 1) * wide + (wide + 1) * narrow + (narrow + 1) * 8;
        QCOMPARE(e.weights, params * 4);
        QCOMPARE(e.gradients, params * 4);
        auto backend = createCpuBackend(1);
        try {
            requireMemoryFits(e, 1, *backend);
            QFAIL("a 3 TiB run fitted");
        } catch (const OutOfMemoryError& error) {
            QCOMPARE(error.requested(), static_cast<uint64_t>(e.total()));
            QVERIFY2(
                QString(error.what()).startsWith("out of memory on cpu: this run needs about "),
                error.what());
        }
        MemoryEstimate small;
        small.weights = 1 << 20;
        requireMemoryFits(small, 1, *backend); // fits: no throw
    }

    // Mixed precision stores activations and their gradients in 16 bits: those halve (pooling
    // indices stay i32), while the f32 master weights, gradients and optimizer state stay.
    void mixedPrecisionHalvesActivations() {
        auto backend = createCpuBackend(1);
        const Shape sample = zooInputShape("resnet20", {});
        const auto spec = modelSpec("resnet20", sample, 10);
        Graph fp32(spec, *backend, DType::F32, 0);
        Graph fp16(spec, *backend, DType::F16, 0);
        const MemoryEstimate a = estimateTrainingMemory(fp32, 128, OptimizerConfig{});
        const MemoryEstimate b = estimateTrainingMemory(fp16, 128, OptimizerConfig{});
        QCOMPARE(b.weights, a.weights);
        QCOMPARE(b.gradients, a.gradients);
        QCOMPARE(b.optimizerState, a.optimizerState);
        QCOMPARE(b.activations * 2, a.activations); // resnet20 has no max pooling
        QCOMPARE(b.activationGradients * 2, a.activationGradients);
    }
};

QTEST_GUILESS_MAIN(TestMemoryEstimate)
#include "tst_memoryestimate.moc"

// The zoo's GPT against PyTorch: nanoGPT's model written in PyTorch (tests/bench/
// torch_reference.py), started from our initial weights on our batches, gives the same logits
// and first-step gradients within float32 noise, and 20 AdamW steps with gradient clipping
// follow the same loss curve: ours stay as close to PyTorch's float64 run as PyTorch's own
// float32 run does (tests/torch/gpt_reference.py). Also: the model's size and weight tying, that
// attention never looks ahead, and that a small model learns the built-in corpus.
#include "backend/cpu/cpubackend.h"
#include "backend/kernels/random_math.h"
#include "core/errors.h"
#include "io/safetensors.h"
#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "optim/optimizer.h"
#include "support/runlog.h"
#include "support/testdata.h"
#include "support/torchreference.h"
#include "train/lossrows.h"
#include "train/trainer.h"

#include <QDir>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb;

namespace {

constexpr int kSteps = 20;
constexpr int kBatch = 4, kBlock = 8, kVocab = 11;
constexpr float kLr = 1e-2f, kClip = 0.5f;

const nlohmann::json kSmall{{"n_layer", 2}, {"n_head", 2}, {"n_embd", 16}};

Tensor hostCopy(Backend& b, const Tensor& t) {
    Tensor h = Tensor::host(t.shape(), t.dtype());
    b.copy(t, h);
    return h;
}

Tensor tokenIds(const Shape& shape, uint64_t seed) {
    Tensor t = Tensor::host(shape, DType::F32);
    for (int64_t i = 0; i < t.numel(); ++i)
        t.data<float>()[i] = static_cast<float>(math::mix64(seed, static_cast<uint64_t>(i)) %
                                                static_cast<uint64_t>(kVocab));
    return t;
}

} // namespace

class TestGpt : public QObject {
    Q_OBJECT
private slots:
    // nanoGPT's count for this shape: the output projection is the token table, counted once.
    void sizeAndTying() {
        CpuBackend backend(2);
        Graph graph(modelSpec("gpt", {64}, 65), backend, DType::F32, 1);
        // wte 65x128, wpe 64x128, 4 blocks of 198,272, ln_f 256.
        QCOMPARE(graph.parameterCount(), int64_t{809856});
        QVERIFY(graph.layer("lm_head")->params().empty());
        QCOMPARE(graph.positions(), int64_t{64});
        try {
            modelSpec("gpt", {1, 28, 28}, 10);
            QFAIL("a GPT on images was accepted");
        } catch (const ConfigError& e) {
            QVERIFY2(std::string(e.what()).find("dataset=text") != std::string::npos, e.what());
        }
    }

    // Changing the last token changes no earlier position's logits.
    void attentionNeverLooksAhead() {
        CpuBackend backend(2);
        Graph graph(modelSpec("gpt", {kBlock}, kVocab, kSmall), backend, DType::F32, 2);
        Tensor x = tokenIds({1, kBlock}, 9);
        const Tensor before = hostCopy(backend, graph.forward(x, false));
        x.data<float>()[kBlock - 1] = std::fmod(x.data<float>()[kBlock - 1] + 1.0f, kVocab);
        const Tensor after = hostCopy(backend, graph.forward(x, false));
        const int64_t earlier = (kBlock - 1) * kVocab;
        for (int64_t i = 0; i < earlier; ++i)
            QCOMPARE(after.data<float>()[i], before.data<float>()[i]);
        bool lastChanged = false;
        for (int64_t i = earlier; i < after.numel(); ++i)
            lastChanged |= after.data<float>()[i] != before.data<float>()[i];
        QVERIFY(lastChanged);
    }

    void matchesPyTorch() {
        if (const QString why = test::torchUnavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QTemporaryDir dir;
        const QString path = dir.filePath("gpt.safetensors");
        train(path.toStdString());
        const QJsonObject r = test::runTorchScript("gpt_reference.py", {path});
        QCOMPARE(r["parameters"].toInt(), r["torch_parameters"].toInt());
        const QString failed =
            test::fartherThanPyTorch(r, {"logits", "gradients", "loss", "final"});
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        QVERIFY2(r["clipped_steps"].toInt() > 0, "the clipping threshold was never reached");
        QCOMPARE(r["ours_clipped_steps"].toInt(), r["clipped_steps"].toInt());
    }

    // A 2-layer, 64-wide GPT learns the built-in corpus (fortune's quotations) in 400 AdamW
    // steps on 2 threads: about 2.42 nats a character on the held-out tail on any machine,
    // asserted below 2.6, far under the 3.32 that the letters' frequencies alone give (a model
    // that used no context). The 4-layer, 128-wide model's goal (below 2.0 nats in 1,200 steps)
    // is measured, with the time it takes, by tests/bench/gpt.sh.
    void learnsTheBuiltInCorpus() {
        if (!QDir(QStringLiteral("/usr/share/games/fortunes")).exists())
            QSKIP("the fortunes package is not installed (/usr/share/games/fortunes)");
        QTemporaryDir dir;
        RunConfig c;
        c.set("dataset", "text");
        c.set("model", "gpt");
        c.set("model.n_layer", "2");
        c.set("model.n_head", "2");
        c.set("model.n_embd", "64");
        c.set("batch_size", "32");
        c.set("optimizer", "adamw");
        c.set("lr", "0.003");
        c.set("weight_decay", "0.1");
        c.set("lr_schedule", "cosine");
        c.set("warmup_steps", "20");
        c.set("min_lr", "0.0003");
        c.set("gradient_clip_val", "1.0");
        c.set("max_epochs", "0");
        c.set("max_steps", "400");
        c.set("threads", "2");
        c.set("checkpoint_dir", dir.path().toStdString());
        test::RunLog log;
        const RunFinishedEvent f = Trainer(c, log).run();
        QVERIFY2(f.status == RunStatus::Completed, f.error.c_str());
        QVERIFY(!log.epochs.empty());
        const EpochEvent& last = log.epochs.back();
        QCOMPARE(last.step, int64_t{400}); // validated where max_steps ends, inside the epoch
        qInfo("validation loss %.3f nats a character (%.3f bits) after %lld steps, %.0f s; "
              "it writes: %s",
              last.valLoss, last.valLoss / std::log(2.0), static_cast<long long>(last.step),
              f.summary.durationSec, last.sample.substr(0, 120).c_str());
        QVERIFY2(last.valLoss < 2.6, qPrintable(QString::number(last.valLoss)));
        QVERIFY(!last.sample.empty());
    }

private:
    // Writes the initial weights, each step's batch, the first step's logits and gradients,
    // each step's loss and the final weights of 20 AdamW steps with clipping.
    void train(const std::string& path) {
        CpuBackend backend(2);
        Graph graph(modelSpec("gpt", {kBlock}, kVocab, kSmall), backend, DType::F32, 3);
        OptimizerConfig adamw;
        adamw.name = "adamw";
        adamw.weightDecay = 0.1f;
        adamw.beta2 = 0.95f;
        Optimizer optimizer(backend, graph.params(), adamw);
        std::vector<SafetensorsEntry> entries;
        for (const NamedTensor& t : graph.stateDict())
            entries.push_back({"init." + t.name, hostCopy(backend, *t.tensor)});
        std::vector<Tensor*> grads;
        for (Param* p : graph.params())
            grads.push_back(&p->grad);
        Tensor loss = backend.empty({2}, DType::F32), lossHost = Tensor::host({2}, DType::F32);
        Tensor clip = backend.empty({2}, DType::F32);
        backend.fill(clip, 0.0f);
        Tensor losses = Tensor::host({kSteps}, DType::F32);
        graph.zeroGrad();
        for (int step = 0; step < kSteps; ++step) {
            const Tensor x = tokenIds({kBatch, kBlock}, 100 + static_cast<uint64_t>(step));
            Tensor y = Tensor::host({kBatch, kBlock}, DType::I32);
            for (int64_t i = 0; i < y.numel(); ++i)
                y.data<int32_t>()[i] = static_cast<int32_t>(
                    math::mix64(200 + static_cast<uint64_t>(step), static_cast<uint64_t>(i)) %
                    kVocab);
            entries.push_back({"x." + std::to_string(step), x});
            entries.push_back({"y." + std::to_string(step), y});
            const Tensor& logits = graph.forward(x, true);
            if (step == 0)
                entries.push_back({"logits0", hostCopy(backend, logits)});
            backend.fill(loss, 0.0f);
            Tensor dlogits = logitRows(graph.logitsGrad());
            backend.softmaxCrossEntropy(logitRows(logits), labelRows(y), 0.0f, loss, &dlogits,
                                        nullptr, 1.0f);
            graph.backward(graph.logitsGrad());
            if (step == 0)
                for (const NamedTensor& t : graph.stateDict())
                    for (Param* p : graph.params())
                        if (&p->value == t.tensor)
                            entries.push_back({"grad0." + t.name, hostCopy(backend, p->grad)});
            backend.clipGradNorm(grads, kClip, nullptr, clip);
            optimizer.step(kLr, nullptr, nullptr);
            graph.zeroGrad();
            backend.copy(loss, lossHost);
            losses.data<float>()[step] = lossHost.data<float>()[0];
        }
        entries.push_back({"loss", losses});
        entries.push_back({"clip", hostCopy(backend, clip)});
        for (const NamedTensor& t : graph.stateDict())
            entries.push_back({"final." + t.name, hostCopy(backend, *t.tensor)});
        writeSafetensors(path, entries,
                         {{"steps", std::to_string(kSteps)},
                          {"lr", std::to_string(kLr)},
                          {"clip", std::to_string(kClip)},
                          {"parameters", std::to_string(graph.parameterCount())},
                          {"options", kSmall.dump()}});
    }
};

QTEST_GUILESS_MAIN(TestGpt)
#include "tst_gpt.moc"

// gradient_clip_val: clipGradNorm is PyTorch's clip_grad_norm_ (the global L2 norm over every
// gradient, scaled by max_norm / (norm + 1e-6) when above it), reads the norm of unscaled
// gradients under a GradScaler, leaves a non-finite step alone and keeps [largest norm, steps
// clipped] on the device. In training: a step clipped to c with plain SGD moves the weights by
// exactly lr * c, each logged step reports the norm and the clipped count (stored with the run),
// and a run without clipping reports none.
#include "backend/cpu/cpubackend.h"
#include "io/safetensors.h"
#include "nn/graph.h"
#include "nn/modelzoo.h"
#include "session/runsession.h"
#include "store/runstore.h"
#include "support/runconfigs.h"
#include "support/runlog.h"
#include "train/checkpointer.h"
#include "train/trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>

using namespace tb;

namespace {

Tensor hostValues(const std::vector<float>& v) {
    Tensor t = Tensor::host({static_cast<int64_t>(v.size())}, DType::F32);
    std::copy(v.begin(), v.end(), t.data<float>());
    return t;
}

std::map<std::string, std::vector<float>> parameters(Graph& g) {
    std::map<std::string, std::vector<float>> out;
    for (const NamedTensor& t : g.stateDict()) {
        const float* p = t.tensor->data<float>();
        out[t.name].assign(p, p + t.tensor->numel());
    }
    return out;
}

} // namespace

class TestGradClip : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;

private slots:
    void clipsToTheGlobalNorm() {
        auto cpu = createCpuBackend(1);
        Tensor a = hostValues({3.0f, 4.0f}), b = hostValues({12.0f}); // norm 13
        Tensor stats = hostValues({0.0f, 0.0f});
        cpu->clipGradNorm({&a, &b}, 6.5f, nullptr, stats);
        const float factor = static_cast<float>(6.5 / (13.0 + 1e-6));
        QCOMPARE(a.data<float>()[0], 3.0f * factor);
        QCOMPARE(a.data<float>()[1], 4.0f * factor);
        QCOMPARE(b.data<float>()[0], 12.0f * factor);
        QCOMPARE(stats.data<float>()[0], 13.0f);
        QCOMPARE(stats.data<float>()[1], 1.0f);

        // Under a GradScaler's scale of 4 the unscaled norm is a quarter: not clipped.
        Tensor c = hostValues({3.0f, 4.0f}), scale = hostValues({4.0f, 0.0f});
        cpu->clipGradNorm({&c}, 2.0f, &scale, stats);
        QCOMPARE(c.data<float>()[1], 4.0f);
        QCOMPARE(stats.data<float>()[0], 13.0f); // the largest norm of the interval stays
        QCOMPARE(stats.data<float>()[1], 1.0f);

        // An overflowed step: the GradScaler skips it, clipping leaves it and the stats alone.
        Tensor bad = hostValues({1.0f, INFINITY});
        cpu->clipGradNorm({&bad}, 0.5f, nullptr, stats);
        QCOMPARE(bad.data<float>()[0], 1.0f);
        QCOMPARE(stats.data<float>()[1], 1.0f);
    }

    // One plain SGD step with every gradient clipped to a tiny norm c moves the parameters by
    // exactly lr * c: the update is the clipped gradient times the learning rate.
    void aClippedSgdStepMovesTheWeightsByLrTimesTheClip() {
        RunConfig config = test::shapesRunConfig(m_tmp.filePath("step").toStdString(), "mlp");
        config.set("dataset", "spirals");
        config.set("momentum", "0");
        config.set("lr", "0.1");
        config.set("lr_schedule", "constant");
        config.set("gradient_clip_val", "0.01");
        config.maxSteps = 1;
        test::RunLog log;
        Trainer trainer(config, log);
        const RunFinishedEvent end = trainer.run();
        QCOMPARE(toString(end.status), std::string("completed"));
        QCOMPARE(log.steps.size(), std::size_t{1});
        QVERIFY(log.steps[0].gradNorm > 0.01);
        QCOMPARE(log.steps[0].clippedSteps, 1);

        auto cpu = createCpuBackend(1);
        const nlohmann::json spec =
            modelSpec(config.model, {2}, config.data.syntheticClasses, config.modelOptions);
        Graph initial(spec, *cpu, DType::F32, config.seed), trained(spec, *cpu, DType::F32, 0);
        Checkpointer::loadWeights(end.checkpoint, trained);
        double moved = 0.0;
        const auto before = parameters(initial), after = parameters(trained);
        for (const auto& [name, values] : before)
            for (std::size_t i = 0; i < values.size(); ++i) {
                const double d = static_cast<double>(after.at(name)[i]) - values[i];
                moved += d * d;
            }
        qInfo("the step moved the weights by %.7f (lr * clip = 0.001)", std::sqrt(moved));
        QVERIFY(std::abs(std::sqrt(moved) - 0.1 * 0.01) < 1e-6);
    }

    void eachLoggedStepReportsTheNormAndIsStored() {
        RunConfig config = test::shapesRunConfig(m_tmp.filePath("stored").toStdString());
        config.maxSteps = 6;
        config.set("gradient_clip_val", "1e6"); // never reached: the norm is still reported
        RunSessionOptions options;
        options.databasePath = m_tmp.filePath("runs.db").toStdString();
        test::RunLog log;
        RunSession session(config, options, {&log});
        QCOMPARE(toString(session.run().status), std::string("completed"));
        QCOMPARE(log.steps.size(), std::size_t{6});
        for (const StepEvent& s : log.steps) {
            QVERIFY(s.gradNorm > 0.0 && std::isfinite(s.gradNorm));
            QCOMPARE(s.clippedSteps, 0);
        }
        const std::vector<StepEvent> stored =
            RunStore(options.databasePath).stepMetrics(session.runId());
        QCOMPARE(stored.size(), log.steps.size());
        QCOMPARE(stored[2].gradNorm, log.steps[2].gradNorm);

        config.set("gradient_clip_val", "0");
        config.set("checkpoint_dir", m_tmp.filePath("off").toStdString());
        test::RunLog off;
        Trainer plain(config, off);
        QCOMPARE(toString(plain.run().status), std::string("completed"));
        for (const StepEvent& s : off.steps)
            QVERIFY(s.gradNorm == 0.0 && s.clippedSteps == 0);
    }

    // Clipped runs are reproducible: two runs with deterministic=true clip the same steps by
    // the same norms and end with the same weights, bit for bit (the GPU's reduction of the
    // norm keeps a fixed order too: tst_gpu_models' clipped row).
    void clippedRunsAreBitIdentical() {
        std::vector<StepEvent> steps[2];
        std::map<std::string, std::vector<float>> weights[2];
        for (int run = 0; run < 2; ++run) {
            RunConfig config =
                test::shapesRunConfig(m_tmp.filePath(QString("twice-%1").arg(run)).toStdString());
            config.maxSteps = 8;
            config.set("gradient_clip_val", "0.05"); // clips most steps
            config.set("deterministic", "true");
            config.set("num_workers", "2");
            test::RunLog log;
            Trainer trainer(config, log);
            const RunFinishedEvent f = trainer.run();
            QCOMPARE(toString(f.status), std::string("completed"));
            steps[run] = log.steps;
            for (const auto& [name, t] : readSafetensors(f.checkpoint).tensors)
                if (t.dtype() == DType::F32) // the weights and the optimizer's state
                    weights[run][name].assign(t.data<float>(), t.data<float>() + t.numel());
        }
        QCOMPARE(steps[0].size(), steps[1].size());
        int clipped = 0;
        for (std::size_t i = 0; i < steps[0].size(); ++i) {
            QVERIFY(steps[0][i].gradNorm == steps[1][i].gradNorm); // exact, not fuzzy
            QVERIFY(steps[0][i].loss == steps[1][i].loss);
            QCOMPARE(steps[0][i].clippedSteps, steps[1][i].clippedSteps);
            clipped += steps[0][i].clippedSteps;
        }
        QVERIFY(clipped > 0);
        QVERIFY(weights[0] == weights[1]);
    }
};

QTEST_GUILESS_MAIN(TestGradClip)
#include "tst_gradclip.moc"

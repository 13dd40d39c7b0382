// The layer profiler: what a profile of a few steps promises. Its rows and the loader's wait add
// up to the measured step time within 10%, a detector's as a classifier's; its FLOPs are the
// layer table's; its trace is Chrome trace JSON with one complete event per layer, pass and
// step; it is stored with its run; on this machine's measured roofline a large matrix product
// lies on the compute side and a ReLU over a large tensor on the memory side, and the advice
// says so; the report survives its JSON, and a broken
// one is refused naming the field.
#include "core/errors.h"
#include "nn/graph.h"
#include "session/profilesession.h"
#include "session/runsession.h"
#include "store/runstore.h"
#include "support/runconfigs.h"
#include "support/runlog.h"
#include "support/testdata.h"
#include "train/layerprofile.h"
#include "train/profilecomparison.h"
#include "train/trainer.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <chrono>
#include <map>

using namespace tb;

namespace {

const LayerProfile* findRow(const ProfileReport& r, const std::string& name,
                            const std::string& pass) {
    for (const LayerProfile& row : r.rows)
        if (row.name == name && row.pass == pass)
            return &row;
    return nullptr;
}

} // namespace

class TestProfile : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;

private slots:
    void initTestCase() {
        // The roofline's measurements are cached in the data folder: the test's, not the user's.
        qputenv("XDG_DATA_HOME", m_tmp.filePath("data").toUtf8());
    }

    void aProfileAccountsForTheStep() {
        RunConfig config = test::shapesRunConfig(m_tmp.filePath("ckpt").toStdString());
        config.maxEpochs = 1;
        test::RunLog log;
        Trainer trainer(config, log);
        trainer.requestProfile(4, 2);
        QCOMPARE(toString(trainer.run().status), std::string("completed"));
        QCOMPARE(log.profiles.size(), std::size_t{1});
        const ProfileReport& r = log.profiles.front();
        QCOMPARE(r.steps, 4);
        QCOMPARE(r.firstStep, int64_t{2});
        QCOMPARE(r.batch, config.batchSize);
        QVERIFY(r.roofline.known());

        double rows = 0.0;
        for (const LayerProfile& row : r.rows)
            rows += row.ms;
        qInfo("step %.3f ms: rows %.3f, data wait %.3f, other %.3f", r.stepMs, rows, r.dataWaitMs,
              r.otherMs);
        QVERIFY2(std::abs(r.otherMs) <= 0.1 * r.stepMs, "the rows miss more than 10% of the step");
        QVERIFY(std::abs(rows + r.dataWaitMs + r.otherMs - r.stepMs) < 1e-6 * r.stepMs + 1e-9);

        // Every layer has its forward row with the layer table's FLOPs (a ReLU fused into the
        // layer before runs inside that layer's).
        QCOMPARE(log.starts.size(), std::size_t{1});
        for (const nlohmann::json& layer : log.starts.front().modelSummary) {
            const LayerProfile* row = findRow(r, layer.at("name"), "forward");
            if (!row && layer.at("type") == "relu")
                continue;
            QVERIFY2(row, layer.dump().c_str());
            QCOMPARE(row->flops, layer.at("flops").get<int64_t>());
            QCOMPARE(row->type, layer.at("type").get<std::string>());
            QVERIFY(row->ms > 0.0);
        }
        for (const char* phase : {"h2d", "loss", "optimizer"})
            QVERIFY2(findRow(r, phase, "phase"), phase);

        // The trace: valid JSON with one complete event per row and step.
        const nlohmann::json trace = nlohmann::json::parse(chromeTrace(r).dump());
        std::map<std::pair<std::string, std::string>, int> complete;
        for (const nlohmann::json& e : trace.at("traceEvents"))
            if (e.at("ph") == "X") {
                QVERIFY(e.at("dur").get<double>() >= 0.0);
                QVERIFY(e.at("ts").get<double>() >= 0.0);
                ++complete[{e.at("name").get<std::string>(), e.at("cat").get<std::string>()}];
            }
        for (const LayerProfile& row : r.rows)
            QCOMPARE(complete[std::make_pair(row.name, row.pass)], r.steps);
    }

    // A detector's step: its layers, and YOLOv8's loss on the host in the loss phase, account
    // for the step as a classifier's do.
    void aDetectorsStepIsProfiled() {
        RunConfig config;
        config.set("dataset", "shapes-detect");
        config.set("data.imgsz", "64");
        config.set("data.synthetic_samples", "80");
        config.set("batch_size", "8");
        config.set("max_epochs", "1");
        config.set("threads", "2");
        config.set("device", "cpu");
        config.set("checkpoint_dir", m_tmp.filePath("ckpt-detect").toStdString());
        test::RunLog log;
        Trainer trainer(config, log);
        trainer.requestProfile(3, 2);
        QCOMPARE(toString(trainer.run().status), std::string("completed"));
        QCOMPARE(log.profiles.size(), std::size_t{1});
        const ProfileReport& r = log.profiles.front();
        QCOMPARE(r.steps, 3);
        const LayerProfile* loss = findRow(r, "loss", "phase");
        QVERIFY(loss && loss->ms > 0.0);
        QVERIFY(findRow(r, "model.22", "forward"));
        qInfo("step %.3f ms: loss %.3f, data wait %.3f, other %.3f", r.stepMs, loss->ms,
              r.dataWaitMs, r.otherMs);
        QVERIFY2(std::abs(r.otherMs) <= 0.1 * r.stepMs, "the rows miss more than 10% of the step");
    }

    void aProfileIsStoredWithItsRun() {
        RunConfig config = test::shapesRunConfig(m_tmp.filePath("ckpt").toStdString());
        config.maxSteps = 4;
        RunSessionOptions options;
        options.databasePath = m_tmp.filePath("runs.db").toStdString();
        test::RunLog log;
        RunSession session(config, options, {&log});
        session.requestProfile(2, 1);
        QCOMPARE(toString(session.run().status), std::string("completed"));
        QVERIFY(session.recordedEverything());
        QCOMPARE(log.profiles.size(), std::size_t{1});
        RunStore store(options.databasePath);
        const std::vector<ProfileReport> stored = store.profiles(session.runId());
        QCOMPARE(stored.size(), std::size_t{1});
        QCOMPARE(toJson(stored.front()), toJson(log.profiles.front()));
        QCOMPARE(stored.front().firstStep, int64_t{1});
    }

    // Fine-tuning's parameter groups (body at lr, head at 10x) are timed apart, each with its
    // own parameters' traffic; clearing the gradients is a span of its own.
    void theOptimizerIsTimedPerParameterGroup() {
        RunConfig config = test::shapesRunConfig(m_tmp.filePath("ckpt-groups").toStdString());
        config.maxSteps = 4;
        config.headLrMult = 10.0f;
        test::RunLog log;
        Trainer trainer(config, log);
        trainer.requestProfile(2, 1);
        QCOMPARE(toString(trainer.run().status), std::string("completed"));
        QCOMPARE(log.profiles.size(), std::size_t{1});
        const ProfileReport& r = log.profiles.front();
        const LayerProfile* body = findRow(r, "optimizer: body", "phase");
        const LayerProfile* head = findRow(r, "optimizer: head", "phase");
        QVERIFY(body && head);
        QVERIFY(!findRow(r, "optimizer", "phase"));
        QVERIFY(findRow(r, "zero-grad", "phase"));
        int64_t total = 0;
        for (const nlohmann::json& layer : log.starts.front().modelSummary)
            total += layer.at("params").get<int64_t>();
        const LayerWork all = optimizerWork(total, "sgd", config.optimizer.momentum);
        QCOMPARE(body->bytes + head->bytes, all.bytes);
        QVERIFY2(head->bytes < body->bytes, "the head is the smaller group");
    }

    // A stored run measured again from its checkpoint: its weights and config, steps of its
    // own, nothing written beside the run's checkpoint or recorded as a run.
    void aStoredRunIsProfiledFromItsCheckpoint() {
        const QString folder = m_tmp.filePath("ckpt-stored");
        RunConfig config = test::shapesRunConfig(folder.toStdString());
        config.maxSteps = 3;
        RunSessionOptions options;
        options.databasePath = m_tmp.filePath("stored.db").toStdString();
        test::RunLog trained;
        RunSession session(config, options, {&trained});
        QCOMPARE(toString(session.run().status), std::string("completed"));
        const std::string checkpoint =
            RunStore(options.databasePath).getRun(session.runId()).checkpoint;
        QVERIFY(QFile::exists(QString::fromStdString(checkpoint)));
        const QStringList before = QDir(folder).entryList(QDir::Files);
        const QDateTime modified = QFileInfo(QString::fromStdString(checkpoint)).lastModified();

        ProfileRunOptions profile;
        profile.steps = 2;
        profile.warmup = 1;
        profile.weightsFrom = checkpoint;
        profile.session.databasePath = options.databasePath; // ignored: nothing is recorded
        test::RunLog log;
        const ProfileRunResult result =
            runProfile(Trainer::configFromCheckpoint(checkpoint), profile, {&log});
        QCOMPARE(toString(result.finished.status), std::string("completed"));
        QVERIFY(result.report);
        QCOMPARE(result.report->steps, 2);
        QCOMPARE(result.report->firstStep, int64_t{1});
        QCOMPARE(result.unprofiledSteps, 2);
        QVERIFY(result.unprofiledStepMs > 0.0);
        QVERIFY(std::find(log.logs.begin(), log.logs.end(), "weights from " + checkpoint) !=
                log.logs.end());
        QCOMPARE(QDir(folder).entryList(QDir::Files), before);
        QCOMPARE(QFileInfo(QString::fromStdString(checkpoint)).lastModified(), modified);
        QCOMPARE(RunStore(options.databasePath).listRuns().size(), std::size_t{1});
    }

    void aLargeMatmulIsComputeBoundAndALargeReluMemoryBound() {
        const nlohmann::json spec = {
            {"name", "roofline-probe"},
            {"input", {4096}},
            {"classes", 10},
            {"layers",
             {{{"type", "linear"}, {"name", "matmul"}, {"out_features", 4096}},
              {{"type", "relu"}, {"name", "relu"}},
              {{"type", "linear"}, {"name", "head"}, {"out_features", 10}}}}};
        auto backend = createCpuBackend(2);
        Graph graph(spec, *backend, DType::F32, 1);
        const int64_t batch = 512;
        const Tensor x = test::randomTensor({batch, 4096}, 3);
        const auto pass = [&] {
            graph.forward(x, true);
            backend->fill(graph.logitsGrad(), 0.01f);
            graph.backward(graph.logitsGrad());
        };
        pass(); // warm-up: buffers, oneDNN's JIT
        StepTimeline timeline(*backend);
        graph.setTimeline(&timeline);
        const auto start = std::chrono::steady_clock::now();
        for (int step = 0; step < 2; ++step) {
            timeline.beginStep();
            pass();
        }
        graph.setTimeline(nullptr);
        ProfileContext context;
        context.batch = batch;
        context.wallMs =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        context.dataWaitMs = {0.0, 0.0};
        context.roofline = machineRoofline(*backend);
        QVERIFY(context.roofline.known());
        const ProfileReport r = buildProfileReport(graph, timeline.spans(), context);
        const LayerProfile* matmul = findRow(r, "matmul", "forward");
        const LayerProfile* relu = findRow(r, "relu", "forward");
        QVERIFY(matmul && relu);
        qInfo("roofs %.1f GFLOP/s, %.1f GB/s; matmul %.1f GFLOP/s (%.0f%% of its roof), relu "
              "%.1f GB/s (%.0f%%)",
              r.roofline.peakGflops, r.roofline.bandwidthGBs, matmul->gflops,
              100 * matmul->roofFraction, relu->gbs, 100 * relu->roofFraction);
        // Which side of the ridge each lies on is the work's; how near its roof it gets is the
        // machine's at that moment (one busy with other work can leave the ReLU under 10% of
        // its roof, "overhead"; tst_profile's work model checks that rule with fixed times).
        // So each may be its side's bound or overhead, never the other side's.
        QVERIFY(matmul->intensity > r.roofline.ridge());
        QVERIFY(relu->intensity < r.roofline.ridge());
        QVERIFY2(matmul->bound == Bound::Compute || matmul->bound == Bound::Overhead,
                 toString(matmul->bound).c_str());
        QVERIFY2(relu->bound == Bound::Memory || relu->bound == Bound::Overhead,
                 toString(relu->bound).c_str());
        // The advice names the matmul's bound (most of the step) first.
        const std::vector<std::string> advice = profileAdvice(r);
        QVERIFY(!advice.empty());
        QVERIFY2(advice[0].rfind(toString(matmul->bound) + "-bound layers take", 0) == 0,
                 advice[0].c_str());
        if (relu->bound == Bound::Memory && matmul->bound == Bound::Compute)
            QVERIFY2(advice.size() >= 2 && advice[1].rfind("memory-bound layers take", 0) == 0,
                     advice.back().c_str());
    }

    void theWorkModelCountsWhatEachPassMoves() {
        LayerRow linear;
        linear.type = "linear";
        linear.output = Shape({8, 4});
        linear.params = 4 * 16 + 4;
        linear.flops = 2 * 8 * 16 * 4;
        // Forward: x (8x16) and y (8x4) in f32, the weights once.
        QCOMPARE(forwardWork(linear, 8 * 16, 4).bytes, (8 * 16 + 8 * 4) * 4 + 68 * 4);
        // Backward: dy, x and dx; weights read, their gradients read and written.
        const LayerWork back = backwardWork(linear, 8 * 16, 4, false);
        QCOMPARE(back.flops, 2 * linear.flops);
        QCOMPARE(back.bytes, (8 * 4 + 2 * 8 * 16) * 4 + 3 * 68 * 4);
        // On the batch itself no data gradient; frozen, no weight gradient.
        QCOMPARE(backwardWork(linear, 8 * 16, 4, true).flops, linear.flops);
        linear.frozen = true;
        QCOMPARE(backwardWork(linear, 8 * 16, 4, false).flops, linear.flops);
        QCOMPARE(optimizerWork(100, "sgd", 0.9f).bytes, int64_t{100 * 5 * 4});
        QCOMPARE(optimizerWork(100, "adamw", 0.9f).bytes, int64_t{100 * 7 * 4});

        LayerProfile row;
        row.flops = 1'000'000'000;
        row.bytes = 1'000'000;
        row.ms = 10.0; // 100 GFLOP/s
        Roofline roof;
        roof.peakGflops = 200.0;
        roof.bandwidthGBs = 20.0;
        placeUnderRoofline(row, roof);
        QCOMPARE(toString(row.bound), std::string("compute"));
        QVERIFY(std::abs(row.roofFraction - 0.5) < 1e-9);
        row.ms = 1000.0; // 1% of what the roof allows
        placeUnderRoofline(row, roof);
        QCOMPARE(toString(row.bound), std::string("overhead"));
        row.flops = 1'000'000;
        row.bytes = 1'000'000'000;
        row.ms = 100.0; // 10 GB/s of 20
        placeUnderRoofline(row, roof);
        QCOMPARE(toString(row.bound), std::string("memory"));
        QVERIFY(std::abs(row.roofFraction - 0.5) < 1e-9);
    }

    // A convolution above the compute roof did fewer multiplications than the direct FLOPs the
    // rows count: the advice says which algorithm did that, and says nothing when none did.
    void convolutionsAboveTheRoofAreExplained() {
        ProfileReport r;
        r.device = "cpu";
        r.stepMs = 10.0;
        r.rows = {{"conv1", "conv2d", "forward", 6.0, 100, 10, 10, 1, 1, 0.9, Bound::Compute},
                  {"fc", "linear", "forward", 1.0, 100, 10, 10, 1, 1, 1.5, Bound::Compute}};
        const auto explainsTheRoof = [](const std::vector<std::string>& advice) {
            return std::any_of(advice.begin(), advice.end(), [](const std::string& line) {
                return line.rfind("convolutions reaching", 0) == 0;
            });
        };
        QVERIFY(!explainsTheRoof(profileAdvice(r)));
        r.rows[0].roofFraction = 1.1; // a direct convolution a little above the sgemm's peak
        QVERIFY(!explainsTheRoof(profileAdvice(r)));
        r.rows[0].roofFraction = 2.6;
        r.rows[0].bound = Bound::Memory; // above the memory roof: data still in the caches
        QVERIFY(!explainsTheRoof(profileAdvice(r)));
        r.rows[0].bound = Bound::Compute;
        const std::vector<std::string> advice = profileAdvice(r);
        QVERIFY(explainsTheRoof(advice));
        QVERIFY(std::any_of(advice.begin(), advice.end(), [](const std::string& line) {
            return line.rfind("convolutions reaching 260% of the compute roof ran Winograd's "
                              "algorithm (conv_algorithm=auto)",
                              0) == 0;
        }));
        r.device = "cuda:0";
        const std::vector<std::string> gpu = profileAdvice(r);
        QVERIFY(std::any_of(gpu.begin(), gpu.end(), [](const std::string& line) {
            return line.find("cuDNN") != std::string::npos;
        }));
    }

    // Two profiles side by side: rows matched by layer and pass, each bound's time, what changed
    // in the set-up, and the rows that changed bound.
    void twoProfilesAreComparedRowByRow() {
        ProfileReport a, b;
        a.model = b.model = "resnet20";
        a.device = b.device = "cpu";
        a.precision = "32";
        b.precision = "bf16-mixed";
        a.batch = b.batch = 64;
        a.stepMs = 10.0;
        b.stepMs = 5.0;
        a.rows = {{"conv1", "conv2d", "forward", 6.0, 100, 10, 10, 1, 1, 0.8, Bound::Compute},
                  {"bn1", "batchnorm2d", "forward", 3.0, 10, 100, 0.1, 1, 1, 0.6, Bound::Memory},
                  {"gone", "relu", "forward", 1.0, 1, 1, 1, 1, 1, 0.05, Bound::Overhead}};
        b.rows = {{"conv1", "conv2d", "forward", 2.0, 100, 10, 10, 1, 1, 0.7, Bound::Compute},
                  {"bn1", "batchnorm2d", "forward", 2.5, 10, 50, 0.2, 1, 1, 0.05, Bound::Overhead},
                  {"new", "linear", "forward", 0.5, 1, 1, 1, 1, 1, 0.5, Bound::Memory}};
        const ProfileComparison c = compareProfiles(a, b);
        QCOMPARE(c.rows.size(), std::size_t{4});
        QCOMPARE(c.rows[0].name, std::string("conv1"));
        QCOMPARE(c.rows[0].ratio(), 2.0 / 6.0);
        QVERIFY(c.rows[2].inA && !c.rows[2].inB);
        QCOMPARE(c.rows[2].ratio(), 0.0);
        QCOMPARE(c.rows[3].name, std::string("new"));
        QVERIFY(!c.rows[3].inA && c.rows[3].inB);
        QCOMPARE(c.bounds.size(), std::size_t{3});
        QCOMPARE(c.bounds[0].msA, 6.0); // compute
        QCOMPARE(c.bounds[0].msB, 2.0);
        QCOMPARE(c.bounds[1].msA, 3.0); // memory
        QCOMPARE(c.bounds[1].msB, 0.5);
        QCOMPARE(c.bounds[2].msA, 1.0); // overhead
        QCOMPARE(c.bounds[2].msB, 2.5);

        const std::vector<std::string> summary = comparisonSummary(c);
        const auto says = [&](const std::string& text) {
            for (const std::string& line : summary)
                if (line.find(text) != std::string::npos)
                    return true;
            return false;
        };
        QVERIFY(says("step 10.00 ms -> 5.00 ms (2.00x as fast) with precision 32 -> bf16-mixed"));
        QVERIFY(says("faster most: conv1 forward 6.00 -> 2.00 ms, bn1 forward"));
        QVERIFY(says("1 row(s) changed bound: bn1 forward memory -> overhead"));
        const std::string table = formatProfileComparison(c);
        QVERIFY2(table.find("0.33x") != std::string::npos, table.c_str());
    }

    void theReportSurvivesItsJson() {
        ProfileReport r;
        r.model = "m";
        r.device = "cpu";
        r.precision = "bf16-mixed";
        r.batch = 64;
        r.steps = 2;
        r.stepMs = 3.5;
        r.roofline.peakGflops = 100.0;
        r.roofline.bandwidthGBs = 10.0;
        r.rows.push_back(
            {"conv1", "conv2d", "forward", 1.0, 10, 20, 0.5, 1, 2, 0.3, Bound::Memory});
        r.spans.push_back({"conv1", "forward", 1, 0.25, 1.0});
        r.spans.push_back({"conv1", "forward", 1, 0.5, 1.5, 1});
        const ProfileReport back = profileReportFromJson(toJson(r));
        QCOMPARE(toJson(back), toJson(r));
        QCOMPARE(back.spans.back().rank, 1);

        // A span stored before ranks were traced has no rank: rank 0's.
        nlohmann::json old = toJson(r);
        old["spans"][1].erase(5);
        QCOMPARE(profileReportFromJson(old).spans.back().rank, 0);

        // The trace: a process per rank, each span in its rank's.
        const nlohmann::json trace = chromeTrace(r);
        std::map<int, int> complete, processes;
        for (const nlohmann::json& e : trace.at("traceEvents")) {
            if (e.at("ph") == "X")
                ++complete[e.at("pid").get<int>()];
            else if (e.at("name") == "process_name")
                ++processes[e.at("pid").get<int>()];
        }
        QCOMPARE(complete, (std::map<int, int>{{0, 1}, {1, 1}}));
        QCOMPARE(processes, (std::map<int, int>{{0, 1}, {1, 1}}));

        nlohmann::json broken = toJson(r);
        broken["rows"][0].erase("bytes");
        try {
            profileReportFromJson(broken);
            QFAIL("a row without bytes was accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("'bytes'") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestProfile)
#include "tst_profile.moc"

// Experiment presets and their conclusions: every built-in preset parses and sets only keys the
// schema accepts; a bad preset names its file and key; a conclusion claims a difference only
// beyond the repeats' noise (worked out by hand here), says so when a knob cannot act on this
// machine, and a preset runs end to end into tagged runs in the store.
#include "core/errors.h"
#include "core/processmemory.h"
#include "experiments/batchfinder.h"
#include "experiments/experimentimages.h"
#include "experiments/experimentrunner.h"
#include "experiments/lrfinder.h"
#include "store/runstore.h"
#include "support/runconfigs.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace tb;

namespace {

// An arm of CPU repeats in fp32 with their speeds and, optionally, each repeat's step breakdown
// in ms per step (data wait, forward and backward; 0, 4 and 8 when not given).
ArmResult arm(const std::string& label, std::vector<double> samplesPerSec,
              std::vector<double> dataWaitMs = {}, std::vector<double> forwardMs = {},
              std::vector<double> backwardMs = {}) {
    ArmResult r;
    r.arm.label = label;
    const auto at = [](const std::vector<double>& v, std::size_t i, double otherwise) {
        return i < v.size() ? v[i] : otherwise;
    };
    for (std::size_t i = 0; i < samplesPerSec.size(); ++i) {
        ArmRepeat x;
        x.device = "cpu";
        x.precision = "32";
        x.samplesPerSec = samplesPerSec[i];
        x.parts.dataWaitMs = at(dataWaitMs, i, 0.0);
        x.parts.forwardMs = at(forwardMs, i, 4.0);
        x.parts.backwardMs = at(backwardMs, i, 8.0);
        x.parts.stepMs = 64.0 / samplesPerSec[i] * 1000.0; // a batch of 64
        r.repeats.push_back(x);
    }
    return r;
}

ArmResult withPrecision(ArmResult a, const std::string& precision) {
    for (ArmRepeat& r : a.repeats)
        r.precision = precision;
    return a;
}

ArmResult withLossAndMemory(ArmResult a, std::vector<double> loss, double memoryMiB) {
    for (std::size_t i = 0; i < a.repeats.size(); ++i) {
        a.repeats[i].finalLoss = loss[i];
        a.repeats[i].peakMemoryBytes = (memoryMiB + 0.1 * static_cast<double>(i)) * (1 << 20);
    }
    return a;
}

// A CPU like the Zen 5 the issue was found on: bf16 native, f16 emulated.
ConclusionFacts zen5() {
    return {"avx512_core_bf16", false, true, 2};
}

ExperimentPreset speedPreset(bool needsGpu = false) {
    ExperimentPreset p;
    p.id = "test";
    p.title = "test";
    p.needsGpu = needsGpu;
    return p;
}

// The message of the ConfigError that parsing `text` as a preset throws, or empty.
QString parseError(const std::string& text) {
    try {
        parseExperimentPreset(nlohmann::json::parse(text), "mine", "mine.json");
    } catch (const ConfigError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestExperiments : public QObject {
    Q_OBJECT
private slots:
    void builtinPresetsParseAndSetValidKeys() {
        const auto& all = builtinExperiments();
        QStringList ids;
        for (const ExperimentPreset& p : all) {
            ids << QString::fromStdString(p.id);
            QVERIFY(p.arms.size() >= 2);
            QVERIFY2(p.repeats >= 3, p.id.c_str()); // enough to tell a difference from noise
            for (const ExperimentArm& a : p.arms)
                armConfig(RunConfig(), p, a); // throws for a key or value the schema refuses
        }
        for (const char* id :
             {"num_workers", "pin_memory", "precision", "accumulation", "batch_size", "lr",
              "device", "ddp", "output_stride", "conv_algorithm"})
            QVERIFY2(ids.contains(id), id);
        QVERIFY(findExperiment("pin_memory").needsGpu);
        QVERIFY_THROWS_EXCEPTION(ConfigError, findExperiment("no-such-preset"));
    }

    void aBadPresetNamesItsFileAndKey() {
        QVERIFY(parseError(R"({"title": "x", "arms": [{"label": "a", "set": {"lr": 0.1}}]})")
                    .contains("mine.json: arms"));
        const QString unknown = parseError(R"({"title": "x", "arms": [
            {"label": "a", "set": {"lr": 0.1}}, {"label": "b", "set": {"lr_typo": 1}}]})");
        QVERIFY2(unknown.contains("mine.json: arms[1].set.lr_typo"), qPrintable(unknown));
        const QString range = parseError(R"({"title": "x", "arms": [
            {"label": "a", "set": {"lr": 0.1}}, {"label": "b", "set": {"lr": -3}}]})");
        QVERIFY2(range.contains("arms[1].set.lr"), qPrintable(range));
        QVERIFY(parseError(R"({"arms": []})").contains("mine.json: title"));
        QVERIFY(parseError(R"({"title": "x", "repeats": 0, "arms": []})").contains("repeats"));
        QVERIFY(parseError(R"({"title": "x", "measure": "joy", "arms": []})").contains("measure"));
        QVERIFY(parseError(R"({"title": "x", "images": {"format": "gif"}, "arms": []})")
                    .contains("mine.json: images.format"));
        QVERIFY(parseError(R"({"title": "x", "images": {"size": 3}, "arms": []})")
                    .contains("mine.json: images.size"));
        QVERIFY(parseError(R"({"title": "x", "images": "jpeg", "arms": []})")
                    .contains("mine.json: images"));
    }

    // Means 2000 and 800 with spreads of 20 and 30 over 3 repeats: far beyond the noise.
    void aClearDifferenceIsStatedWithItsCause() {
        const std::vector<ArmResult> arms{
            arm("num_workers=0", {780, 800, 820}, {48.0, 49.6, 48.8}),
            arm("num_workers=2", {1980, 2000, 2020}, {0.9, 0.6, 1.2})};
        const QString c = QString::fromStdString(concludeExperiment(speedPreset(), arms, zen5()));
        QVERIFY2(c.contains("num_workers=2 trained 2.50x faster than num_workers=0"),
                 qPrintable(c));
        QVERIFY2(c.contains("2,000 +- 20 samples/s") && c.contains("800 +- 20 samples/s"),
                 qPrintable(c));
        QVERIFY2(c.contains("waiting for data fell from 48.8 to 0.9 ms per step"), qPrintable(c));
    }

    // The precision preset as found on a Zen 5 (no native f16): 16-mixed is 5.95x slower
    // because its forward and backward passes are, not because of data wait, which barely
    // moved (1.0 to 1.1 ms: within the noise). The conclusion says which part grew, that f16
    // is emulated here, and never "rose from 1% to 1%".
    void aDifferenceIsExplainedByThePartThatChangedMost() {
        const std::vector<ArmResult> arms{
            withPrecision(arm("precision=32", {5950, 6000, 6050}, {1.0, 1.1, 0.9}, {3.0, 3.1, 2.9},
                              {6.0, 6.1, 5.9}),
                          "32"),
            withPrecision(arm("precision=16-mixed", {1000, 1008, 1016}, {1.1, 1.0, 1.2},
                              {20.0, 20.5, 19.5}, {41.0, 41.4, 40.6}),
                          "16-mixed"),
            withPrecision(arm("precision=bf16-mixed", {7600, 7650, 7700}, {1.0, 1.05, 1.0},
                              {2.4, 2.5, 2.3}, {4.6, 4.7, 4.5}),
                          "bf16-mixed")};
        const QString c = QString::fromStdString(concludeExperiment(speedPreset(), arms, zen5()));
        QVERIFY2(c.contains("precision=16-mixed trained 5.95x slower than precision=32"),
                 qPrintable(c));
        QVERIFY2(c.contains("the backward pass rose from 6.0 to 41.0 ms per step"), qPrintable(c));
        QVERIFY2(c.contains("the backward pass fell from 6.0 to 4.6 ms per step"), qPrintable(c));
        QVERIFY2(!c.contains("data"), qPrintable(c));
        QVERIFY2(c.contains("precision=16-mixed is emulated on this CPU (oneDNN ISA "
                            "avx512_core_bf16 has no f16 arithmetic)"),
                 qPrintable(c));
        QVERIFY2(!c.contains("precision=bf16-mixed is emulated"), qPrintable(c));
        // Where the CPU has both, nothing is called emulated.
        const QString native = QString::fromStdString(concludeExperiment(
            speedPreset(), arms, ConclusionFacts{"avx512_core_amx", true, true}));
        QVERIFY2(!native.contains("emulated"), qPrintable(native));
    }

    // A part that moved within the repeats' noise, or by less than its printed resolution, is
    // not said to rise or fall: no part is named at all here.
    void aChangeBelowTheNoiseOrResolutionIsNotNamed() {
        const std::vector<ArmResult> arms{
            arm("a", {800, 810, 820}, {1.00, 1.01, 1.02}, {4.0, 4.0, 4.0}, {8.0, 8.0, 8.0}),
            arm("b", {1600, 1610, 1620}, {1.03, 1.04, 1.05}, {4.0, 4.0, 4.0}, {8.0, 8.0, 8.0})};
        const QString c = QString::fromStdString(concludeExperiment(speedPreset(), arms, zen5()));
        QVERIFY2(c.contains("b trained 1.99x faster than a"), qPrintable(c));
        QVERIFY2(!c.contains("rose") && !c.contains("fell"), qPrintable(c));
    }

    // Workers on a 2-core CPU, as measured on one: the wait for data falls from 7.7 to 0.5 ms
    // a step, the forward pass grows as much (the cores are shared), and the speed stays. The
    // conclusion says both and why, not only "no measurable difference".
    void aWaitTradedForComputeIsExplained() {
        const std::vector<ArmResult> arms{
            arm("num_workers=0", {3100, 3400, 3700}, {7.6, 7.7, 7.8}, {4.0, 4.1, 4.2}),
            arm("num_workers=2", {3150, 3250, 3350}, {0.4, 0.5, 0.6}, {9.0, 9.1, 9.2})};
        const QString c = QString::fromStdString(concludeExperiment(speedPreset(), arms, zen5()));
        QVERIFY2(c.contains("num_workers=2 against num_workers=0: no measurable difference"),
                 qPrintable(c));
        QVERIFY2(c.contains("yet waiting for data fell from 7.7 to 0.5 ms per step, and the "
                            "forward pass rose from 4.1 to 9.1 ms per step"),
                 qPrintable(c));
        QVERIFY2(c.contains("the cores the model computes on (2 here)"), qPrintable(c));
    }

    // The accumulation preset asks two things: less memory, and does it learn alike? Both are
    // answered.
    void theAccumulationQuestionIsAnsweredWhole() {
        const ExperimentPreset preset = findExperiment("accumulation");
        QCOMPARE(preset.alsoMeasured.size(), std::size_t{1});
        const std::vector<ArmResult> arms{
            withLossAndMemory(arm("batch 256", {900, 910, 920}), {0.412, 0.420, 0.404}, 96.0),
            withLossAndMemory(arm("batch 64 x 4", {700, 710, 720}), {0.409, 0.421, 0.415}, 38.0)};
        const QString c = QString::fromStdString(concludeExperiment(preset, arms, zen5()));
        QVERIFY2(c.contains("batch 64 x 4 used 40% of the memory of batch 256"), qPrintable(c));
        QVERIFY2(c.contains("its training loss ended at 0.415 +- 0.006 against 0.412 +- 0.008: "
                            "no measurable difference, so it learns alike"),
                 qPrintable(c));
    }

    // Means 812 and 830 with spreads of about 40: the difference (18) is within twice its
    // standard error (about 2 * 33 = 66), so none is claimed.
    void aDifferenceWithinTheNoiseIsNotClaimed() {
        const std::vector<ArmResult> arms{arm("pin_memory=off", {772, 812, 852}),
                                          arm("pin_memory=on", {795, 830, 865})};
        const Spread a = armSpread(arms[0], ExperimentMeasure::Speed);
        QCOMPARE(a.mean, 812.0);
        QCOMPARE(a.stddev, 40.0);
        QVERIFY(!measurablyDifferent(a, armSpread(arms[1], ExperimentMeasure::Speed)));
        const QString c =
            QString::fromStdString(concludeExperiment(speedPreset(true), arms, zen5()));
        QVERIFY2(c.contains("no measurable difference (pin_memory=on: 830 +- 35 samples/s, "
                            "pin_memory=off: 812 +- 40 samples/s)"),
                 qPrintable(c));
        // And on the CPU, pinned memory could not have helped: the conclusion says why.
        QVERIFY2(c.contains("acts only when a GPU trains"), qPrintable(c));
        // One repeat each has no spread: nothing is claimed either.
        QVERIFY(!measurablyDifferent(armSpread(arm("a", {100}), ExperimentMeasure::Speed),
                                     armSpread(arm("b", {900}), ExperimentMeasure::Speed)));
    }

    void anArmThatCannotRunSaysWhy() {
        std::vector<ArmResult> arms{arm("device=cpu", {500, 510, 505}), arm("device=cuda:0", {})};
        ArmRepeat failed;
        failed.error = "device: no usable GPU";
        arms[1].repeats.push_back(failed);
        const QString c =
            QString::fromStdString(concludeExperiment(speedPreset(true), arms, zen5()));
        QVERIFY2(c.contains("device=cuda:0 could not run here: device: no usable GPU"),
                 qPrintable(c));
    }

    // Two arms x 3 repeats of a tiny run: six recorded runs, tagged, interleaved by repeat.
    void aPresetRunsIntoTaggedRuns() {
        QTemporaryDir dir;
        ExperimentPreset p = speedPreset();
        p.id = "batches";
        p.steps = 6;
        p.repeats = 3;
        p.arms = {{"batch_size=16", {{"batch_size", "16"}}},
                  {"batch_size=32", {{"batch_size", "32"}}}};
        ExperimentOptions o;
        o.session.databasePath = dir.filePath("runs.db").toStdString();
        std::vector<std::size_t> order;
        o.onRepeat = [&](std::size_t a, const ArmRepeat&) { order.push_back(a); };
        const RunConfig base = test::shapesRunConfig(dir.filePath("ckpt").toStdString());
        const ExperimentResult r = runExperiment(p, base, o);
        QVERIFY(!r.stopped);
        QCOMPARE(order, (std::vector<std::size_t>{0, 1, 0, 1, 0, 1}));
        for (const ArmResult& a : r.arms) {
            QCOMPARE(a.repeats.size(), std::size_t{3});
            for (const ArmRepeat& x : a.repeats) {
                QVERIFY2(x.error.empty(), x.error.c_str());
                QVERIFY(x.samplesPerSec > 0);
            }
        }
        QVERIFY(!r.conclusion.empty());
        RunStore store(o.session.databasePath);
        const auto runs = store.listRuns();
        QCOMPARE(runs.size(), std::size_t{6});
        for (const RunRecord& run : runs) {
            QCOMPARE(run.steps, int64_t{6});
            QVERIFY(std::find(run.tags.begin(), run.tags.end(), "experiment:batches") !=
                    run.tags.end());
        }
    }

    // A preset with "images" on a set held in memory trains on that set written as JPEG files
    // (once: a second experiment reuses the folder), at the set-up's sample size, and says so.
    void anImagesPresetTrainsOnTheSetAsFiles() {
        QTemporaryDir dir;
        ExperimentPreset p = speedPreset();
        p.id = "workers";
        p.steps = 3;
        p.repeats = 1;
        p.images = ExperimentImages{"jpeg", 48, 100};
        p.arms = {{"num_workers=0", {{"num_workers", "0"}}},
                  {"num_workers=2", {{"num_workers", "2"}}}};
        ExperimentOptions o;
        o.session.databasePath = dir.filePath("runs.db").toStdString();
        o.exportsRoot = dir.filePath("exports").toStdString();
        std::string announced;
        o.onData = [&](const std::string& note) { announced = note; };
        const RunConfig base = test::shapesRunConfig(dir.filePath("ckpt").toStdString());
        const ExperimentResult r = runExperiment(p, base, o);
        for (const ArmResult& a : r.arms)
            QVERIFY2(a.repeats.size() == 1 && a.repeats[0].error.empty(),
                     a.repeats.empty() ? "no repeat" : a.repeats[0].error.c_str());

        const std::string folder = experimentImagesFolder(base.data, *p.images, o.exportsRoot);
        QCOMPARE(QDir(QString::fromStdString(o.exportsRoot))
                     .entryList(QDir::Dirs | QDir::NoDotAndDotDot),
                 QStringList{QFileInfo(QString::fromStdString(folder)).fileName()}); // no partial
        int files = 0;
        for (QDirIterator it(QString::fromStdString(folder), {"*.jpg"}, QDir::Files,
                             QDirIterator::Subdirectories);
             it.hasNext(); it.next())
            ++files;
        QCOMPARE(files, 100);
        QVERIFY2(announced.find("100 of its images as JPEG files of 48 px") != std::string::npos,
                 announced.c_str());
        QVERIFY(QString::fromStdString(r.conclusion).startsWith(QString::fromStdString(announced)));
        RunStore store(o.session.databasePath);
        for (const RunRecord& run : store.listRuns()) {
            QCOMPARE(run.config.value("dataset", ""), std::string("imagefolder"));
            QCOMPARE(run.config.value("data.root", ""), folder);
            QCOMPARE(run.config.value("data.image_size", 0), 16); // the shapes set-up's size
        }

        // Written once: a file taken away stays away when the next experiment reads the folder.
        const QString first = QDirIterator(QString::fromStdString(folder), {"*.jpg"}, QDir::Files,
                                           QDirIterator::Subdirectories)
                                  .next();
        QVERIFY(QFile::remove(first));
        p.steps = 1;
        runExperiment(p, base, o);
        QVERIFY(!QFile::exists(first));
    }

    // Nothing to export where the set-up reads files already, or its samples are not images.
    void imagesAreTakenAsTheyAreOrNotAtAll() {
        QTemporaryDir dir;
        ExperimentPreset p = speedPreset();
        p.images = ExperimentImages{};
        RunConfig files = test::shapesRunConfig(dir.filePath("ckpt").toStdString());
        files.set("dataset", "imagefolder");
        files.set("data.root", "/photos");
        const ExperimentData own = experimentData(p, files, dir.filePath("exports").toStdString());
        QCOMPARE(own.config.data.root, std::string("/photos"));
        QVERIFY2(own.note.find("own image files (/photos)") != std::string::npos, own.note.c_str());
        RunConfig points = test::shapesRunConfig(dir.filePath("ckpt").toStdString(), "mlp");
        points.set("dataset", "spirals");
        const ExperimentData none =
            experimentData(p, points, dir.filePath("exports").toStdString());
        QCOMPARE(none.config.data.name, std::string("spirals"));
        QVERIFY2(none.note.find("not images") != std::string::npos, none.note.c_str());
        QVERIFY(!QFileInfo::exists(dir.filePath("exports")));
    }

    // The ddp preset's second arm is a job of two processes (mpirun), followed through the
    // store like the first arm's run: both are measured and tagged.
    void theDdpPresetTrainsAJobOfTwoRanks() {
        QProcess probe;
        probe.start("mpirun", {"--version"});
        if (!probe.waitForFinished() || probe.exitCode() != 0)
            QSKIP("mpirun is not installed (openmpi-bin)");
        QTemporaryDir dir;
        ExperimentPreset p = findExperiment("ddp");
        p.steps = 6;
        p.repeats = 1;
        ExperimentOptions o;
        o.session.databasePath = dir.filePath("runs.db").toStdString();
        RunConfig base = test::shapesRunConfig(dir.filePath("ckpt").toStdString());
        base.set("threads", "1");
        const ExperimentResult r = runExperiment(p, base, o);
        QCOMPARE(r.arms.size(), std::size_t{2});
        for (const ArmResult& a : r.arms) {
            QCOMPARE(a.repeats.size(), std::size_t{1});
            QVERIFY2(a.repeats[0].error.empty(), a.repeats[0].error.c_str());
            QVERIFY(a.repeats[0].samplesPerSec > 0);
        }
        RunStore store(o.session.databasePath);
        const RunRecord job = store.getRun(r.arms[1].repeats[0].runId);
        QCOMPARE(job.steps, int64_t{6});
        QVERIFY(std::find(job.tags.begin(), job.tags.end(), "arm:ranks=2") != job.tags.end());
        QCOMPARE(store.stepMetrics(job.id).back().ranks.size(), std::size_t{2});
        QVERIFY(!r.conclusion.empty());
    }

    // A curve worked out by hand: flat to 1e-4, falling fastest between 1e-3 and 1e-2 (log-linear
    // there, steepest at its middle), lowest at 0.1, then rising.
    void lrSuggestionIsTheSteepestDescent() {
        std::vector<double> lr, loss;
        for (int i = 0; i <= 70; ++i) {
            const double e = -6.0 + i * 0.1; // 1e-6 .. 10
            lr.push_back(std::pow(10.0, e));
            loss.push_back(e < -4   ? 2.0
                           : e < -1 ? 2.0 - 1.8 / (1 + std::exp(-4 * (e + 2.5)))
                                    : 0.2 + 2 * (e + 1) * (e + 1));
        }
        const auto s = suggestLearningRate(lr, loss);
        QVERIFY(s);
        QVERIFY2(std::abs(std::log10(*s) + 2.5) <= 0.1, qPrintable(QString::number(*s)));
        // A loss that only rises has no suggestion.
        std::vector<double> rising(lr.size());
        for (std::size_t i = 0; i < rising.size(); ++i)
            rising[i] = 1.0 + static_cast<double>(i);
        QVERIFY(!suggestLearningRate(lr, rising));
    }

    // A real sweep on a tiny model: the lr rises by a constant factor each step, the loss
    // diverges before max_lr and the sweep stops there, and a suggestion inside the range.
    void lrFinderSweepsAndSuggests() {
        QTemporaryDir dir;
        LrFinderOptions o;
        o.steps = 120;
        RunSessionOptions session;
        session.databasePath = dir.filePath("runs.db").toStdString();
        const LrFinderResult r = findLearningRate(
            test::shapesRunConfig(dir.filePath("ckpt").toStdString(), "mlp"), o, session);
        QVERIFY2(r.lr.size() >= 20, qPrintable(QString::fromStdString(r.method)));
        const double factor = std::pow(o.maxLr / o.minLr, 1.0 / (o.steps - 1));
        for (std::size_t i = 1; i < r.lr.size(); ++i)
            QVERIFY(std::abs(r.lr[i] / r.lr[i - 1] / factor - 1.0) < 1e-3);
        QVERIFY2(r.diverged && r.lr.size() < static_cast<std::size_t>(o.steps),
                 qPrintable(QString::fromStdString(r.method)));
        QVERIFY2(r.suggested && *r.suggested > o.minLr && *r.suggested < r.lr.back(),
                 qPrintable(QString::fromStdString(r.method)));
        RunStore store(session.databasePath);
        QCOMPARE(store.getRun(r.runId).tags, std::vector<std::string>{"lr-find"});
    }

    // The search over a trial that fits up to 300: 8, 16, ..., 256 fit, 512 does not, then the
    // bisection between 256 and 512 ends at exactly 300.
    void batchSearchDoublesThenBisects() {
        BatchFinderOptions o;
        std::vector<int64_t> tried;
        const auto upTo300 = [&](int64_t b) {
            tried.push_back(b);
            BatchTry t;
            t.batch = b;
            t.fits = b <= 300;
            return t;
        };
        const BatchFinderResult r = searchLargestBatch(o, upTo300);
        QCOMPARE(r.largest, std::optional<int64_t>(300));
        QCOMPARE(std::vector<int64_t>(tried.begin(), tried.begin() + 7),
                 (std::vector<int64_t>{8, 16, 32, 64, 128, 256, 512}));
        QVERIFY(tried.size() <= 7 + 8); // log2(256) bisection steps at most
        // Capped: everything fits, the cap is the answer; nothing fits: none.
        o.maxBatch = 100;
        QCOMPARE(searchLargestBatch(o,
                                    [](int64_t b) {
                                        return BatchTry{b, true, 0, {}};
                                    })
                     .largest,
                 std::optional<int64_t>(100));
        QVERIFY(!searchLargestBatch(o, [](int64_t b) {
                     return BatchTry{b, false, 0, "oom"};
                 }).largest);
    }

    // Real runs: a small model fits up to the cap; a model no machine holds fails every try as
    // out of memory, which the search survives, saying why.
    void batchFinderSurvivesOutOfMemory() {
        QTemporaryDir dir;
        BatchFinderOptions o;
        o.maxBatch = 64;
        o.steps = 1;
        const RunConfig small = test::shapesRunConfig(dir.filePath("ckpt").toStdString(), "mlp");
        QCOMPARE(findLargestBatch(small, o).largest, std::optional<int64_t>(64));
        RunConfig huge = small;
        huge.set("model.hidden", "4194304,4194304"); // 17.6e12 weights: no machine has the memory
        const BatchFinderResult r = findLargestBatch(huge, o);
        QVERIFY(!r.largest);
        QCOMPARE(r.tries.size(), std::size_t{1});
        QVERIFY2(QString::fromStdString(r.tries[0].why).contains("memory"), r.tries[0].why.c_str());
    }

    // A run's peak memory is its own: a small run after a big one in the same process does not
    // report the big one's peak (the batch finder bisects on it; the window lists it per run).
    void aRunsPeakMemoryIsItsOwn() {
        QTemporaryDir dir;
        if (!resetProcessPeakRss())
            QSKIP("this kernel does not let a process reset its peak RSS (/proc/self/clear_refs)");
        const auto peakOf = [&](const std::string& hidden) {
            RunConfig c = test::shapesRunConfig(dir.filePath("ckpt").toStdString(), "mlp");
            c.set("model.hidden", hidden);
            c.set("max_steps", "1");
            RunSession run(c, RunSessionOptions{}, {});
            return run.run().summary.peakMemoryBytes;
        };
        const uint64_t big = peakOf("4096,4096"); // about 200 MB of weights, gradients, momenta
        const uint64_t small = peakOf("16");
        QVERIFY2(small + (64u << 20) < big, qPrintable(QString("%1 vs %2").arg(small).arg(big)));
    }

    // A stop request ends the experiment without training the remaining repeats.
    void aStopEndsTheExperiment() {
        QTemporaryDir dir;
        ExperimentPreset p = speedPreset();
        p.steps = 4;
        p.arms = {{"a", {{"lr", "0.01"}}}, {"b", {{"lr", "0.02"}}}};
        std::stop_source stop;
        ExperimentOptions o;
        o.onRepeat = [&](std::size_t, const ArmRepeat&) { stop.request_stop(); };
        const ExperimentResult r = runExperiment(
            p, test::shapesRunConfig(dir.filePath("ckpt").toStdString()), o, stop.get_token());
        QVERIFY(r.stopped);
        QCOMPARE(r.arms[0].repeats.size() + r.arms[1].repeats.size(), std::size_t{1});
    }
};

QTEST_GUILESS_MAIN(TestExperiments)
#include "tst_experiments.moc"

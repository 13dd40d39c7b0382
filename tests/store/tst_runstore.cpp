// RunStore: schema, writes and queries, filters, id prefixes, edits with awkward text,
// cascading deletes, interrupted runs and schema versions.
#include "store/runstore.h"

#include "core/runid.h"
#include "store/runsummary.h"
#include "store/schema.h"
#include "store/storeerror.h"
#include "storetestutil.h"

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstdlib>
#include <set>

#include <unistd.h>

using namespace tb;
using namespace tb::test;

class TestRunStore : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string dbPath(const char* name) const { return m_dir.filePath(name).toStdString(); }

    // A finished run with 20 steps, 2 epochs, one system sample, a log and an advice.
    static void writeRun(RunStore& store, const std::string& id, RunStatus status,
                         const std::string& model = "mlp", const std::string& dataset = "fmnist",
                         double startedAt = 1000.0) {
        store.beginTransaction();
        store.beginRun(runStarted(id, "name of " + id, model, dataset), startedAt);
        for (int i = 1; i <= 20; ++i)
            store.addStep(id, step(i, startedAt));
        store.addEpoch(id, epoch(1, 0.80));
        store.addEpoch(id, epoch(2, 0.75));
        SystemSample s;
        s.unixTime = startedAt + 5;
        s.host.cpuPercent = 42.0;
        s.host.perCorePercent = {40.0, 44.0};
        s.host.ramTotalBytes = 8ull << 30;
        GpuSample g;
        g.index = 0;
        g.name = "Fake GPU";
        g.utilPercent = 97.0;
        g.memUsedBytes = 1ull << 30;
        g.throttleReasons = 4;
        s.gpus.push_back(g);
        store.addSystemSample(id, s);
        store.addLog(id, LogEvent{LogLevel::Warning, "slow data loader", startedAt + 6});
        store.addAdvice(id, AdviceEvent{"low-gpu-util", "raise num_workers", 15, startedAt + 7});
        RunFinishedEvent f;
        f.status = status;
        f.summary.epochs = 2;
        f.summary.bestValAcc = 0.80;
        f.summary.bestEpoch = 1;
        f.summary.finalValAcc = 0.75;
        f.summary.steps = 20;
        f.summary.durationSec = 30.0;
        store.finishRun(id, f, startedAt + 30);
        store.commit();
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void createsFoldersAndSchema() {
        const std::string path = dbPath("nested/deeper/runs.db");
        RunStore store(path);
        QVERIFY(QFile::exists(QString::fromStdString(path)));
        QCOMPARE(schemaVersion(store.db()), currentSchemaVersion());
        QCOMPARE(scalarText(store.db(), "PRAGMA journal_mode"), std::string("wal"));
        QCOMPARE(scalar(store.db(), "PRAGMA foreign_keys"), int64_t{1});
        QVERIFY(store.listRuns().empty());
    }

    void defaultPath_data() {
        QTest::addColumn<QString>("xdg");
        QTest::addColumn<QString>("home");
        QTest::addColumn<QString>("expected");
        QTest::newRow("xdg") << "/xdg/data"
                             << "/home/u"
                             << "/xdg/data/TrainBench/runs.db";
        QTest::newRow("no-xdg") << ""
                                << "/home/u"
                                << "/home/u/.local/share/TrainBench/runs.db";
        QTest::newRow("relative-xdg-ignored") << "rel/data"
                                              << "/home/u"
                                              << "/home/u/.local/share/TrainBench/runs.db";
    }

    void defaultPath() {
        QFETCH(QString, xdg);
        QFETCH(QString, home);
        QFETCH(QString, expected);
        const QByteArray oldXdg = qgetenv("XDG_DATA_HOME");
        const QByteArray oldHome = qgetenv("HOME");
        if (xdg.isEmpty())
            qunsetenv("XDG_DATA_HOME");
        else
            qputenv("XDG_DATA_HOME", xdg.toUtf8());
        qputenv("HOME", home.toUtf8());
        const std::string path = defaultDatabasePath();
        qputenv("XDG_DATA_HOME", oldXdg);
        qputenv("HOME", oldHome);
        QCOMPARE(QString::fromStdString(path), expected);
    }

    void runIdIsSortable() {
        const std::string a = makeRunId();
        const std::string b = makeRunId();
        static const QRegularExpression re("^\\d{8}-\\d{6}-[0-9a-f]{12}$");
        QVERIFY2(re.match(QString::fromStdString(a)).hasMatch(), a.c_str());
        QVERIFY(a.substr(0, 15) <= b.substr(0, 15));
    }

    // A sweep starts many runs within one second: 16 random bits made a shared id likely
    // (50% at about 300 runs); the ids of 100000 runs must all differ.
    void runIdsOfOneSecondDiffer() {
        std::set<std::string> ids;
        constexpr int kRuns = 100000;
        for (int i = 0; i < kRuns; ++i)
            ids.insert(makeRunId());
        QCOMPARE(ids.size(), std::size_t{kRuns});
    }

    // Starting a new run under a recorded id must not merge the two runs.
    void newRunUnderATakenIdIsRefused() {
        RunStore store(dbPath("taken.db"));
        writeRun(store, "r", RunStatus::Completed);
        store.beginTransaction();
        try {
            store.beginRun(runStarted("r", "another run", "resnet20"), 3000.0);
            QFAIL("a new run under a taken id must be refused");
        } catch (const StoreError& e) {
            QCOMPARE(int(e.kind()), int(StoreError::Kind::DuplicateId));
            QVERIFY2(std::string(e.what()).find("'r'") != std::string::npos, e.what());
        }
        store.rollback();
        const RunRecord r = store.getRun("r");
        QCOMPARE(toString(r.status), toString(RunStatus::Completed));
        QCOMPARE(r.model, std::string("mlp"));
        QCOMPARE(store.stepMetrics("r").size(), std::size_t{20});
    }

    void writesAndReadsARun() {
        RunStore store(dbPath("one.db"));
        writeRun(store, "20260101-000000-aaaa", RunStatus::Completed);
        const RunRecord r = store.getRun("20260101-000000-aaaa");
        QCOMPARE(r.name, std::string("name of 20260101-000000-aaaa"));
        QCOMPARE(toString(r.status), toString(RunStatus::Completed));
        QCOMPARE(r.model, std::string("mlp"));
        QCOMPARE(r.dataset, std::string("fmnist"));
        QCOMPARE(r.device, std::string("cpu"));
        QCOMPARE(r.config["optimizer"]["lr"].get<double>(), 0.1);
        QCOMPARE(r.steps, int64_t{20});
        QCOMPARE(r.epochs, int64_t{2});
        QCOMPARE(r.bestValAcc.value_or(-1), 0.80);
        QCOMPARE(r.bestEpoch.value_or(-1), int64_t{1});
        QCOMPARE(r.finalValAcc.value_or(-1), 0.75);
        QCOMPARE(r.durationSec.value_or(-1), 30.0);
        QCOMPARE(r.meanSamplesPerSec.value_or(-1), 5000.0); // from the steps: none in summary
        QVERIFY(!r.peakMemoryBytes);
        QCOMPARE(r.endedAt.value_or(-1), 1030.0);
        QCOMPARE(r.writerPid.value_or(-1), int64_t{getpid()});

        const auto steps = store.stepMetrics(r.id);
        QCOMPARE(steps.size(), std::size_t{20});
        QCOMPARE(steps[4].step, int64_t{5});
        QCOMPARE(steps[4].loss, 2.0 / 5);
        QCOMPARE(steps[4].samplesSeen, int64_t{5 * 64});
        QCOMPARE(steps[4].dataWaitMs, 1.5);
        const auto epochs = store.epochMetrics(r.id);
        QCOMPARE(epochs.size(), std::size_t{2});
        QCOMPARE(epochs[1].valAcc, 0.75);

        const auto samples = store.systemSamples(r.id);
        QCOMPARE(samples.size(), std::size_t{1});
        QCOMPARE(samples[0].host.cpuPercent.value_or(-1), 42.0);
        QCOMPARE(samples[0].host.perCorePercent, (std::vector<double>{40.0, 44.0}));
        QVERIFY(!samples[0].host.ramUsedBytes); // missing stays missing, never 0
        QCOMPARE(samples[0].gpus.size(), std::size_t{1});
        QCOMPARE(samples[0].gpus[0].name, std::string("Fake GPU"));
        QCOMPARE(samples[0].gpus[0].utilPercent.value_or(-1), 97.0);
        QCOMPARE(samples[0].gpus[0].throttleReasons.value_or(0), uint64_t{4});
        QVERIFY(!samples[0].gpus[0].powerW);

        const auto log = store.events(r.id);
        QCOMPARE(log.size(), std::size_t{2});
        QCOMPARE(log[0].kind, RunLogEntry::Kind::Log);
        QCOMPARE(toString(log[0].level), toString(LogLevel::Warning));
        QCOMPARE(log[1].kind, RunLogEntry::Kind::Advice);
        QCOMPARE(log[1].rule, std::string("low-gpu-util"));
        QCOMPARE(log[1].step.value_or(-1), int64_t{15});
    }

    // A segmentation's runs keep their best mean IoU beside the pixel accuracy (val_acc), the
    // score sweeps and the comparison rank them by; other runs have none.
    void keepsTheBestMeanIoU() {
        RunStore store(dbPath("miou.db"));
        store.beginTransaction();
        store.beginRun(runStarted("seg", "unet", "unet", "shapes-seg"), 1.0);
        store.beginRun(runStarted("cls", "mlp"), 1.0);
        for (const auto& [n, miou] : {std::pair{1, 0.31}, std::pair{2, 0.52}, std::pair{3, 0.47}}) {
            EpochEvent e = epoch(n, 0.9);
            e.validation.segmentation = SegmentationReport{};
            e.validation.segmentation->meanIoU = miou;
            store.addEpoch("seg", e);
        }
        store.addEpoch("cls", epoch(1, 0.8));
        store.commit();
        QCOMPARE(store.getRun("seg").bestMeanIoU.value_or(0), 0.52);
        QCOMPARE(store.getRun("seg").bestEpoch.value_or(0), 2); // by mIoU: the accuracy is flat
        QCOMPARE(summaryValue(store.getRun("seg"), "best_miou").value_or(0), 0.52);
        QVERIFY(!store.getRun("cls").bestMeanIoU);
        QVERIFY(!summaryValue(store.getRun("cls"), "best_miou"));
    }

    void nanLossRoundTripsAsNan() {
        RunStore store(dbPath("nan.db"));
        store.beginTransaction();
        store.beginRun(runStarted("nan-run"), 1.0);
        StepEvent s = step(1);
        s.loss = std::nan("");
        store.addStep("nan-run", s);
        store.commit();
        QVERIFY(std::isnan(store.stepMetrics("nan-run").at(0).loss));
    }

    void listsNewestFirstWithFilters() {
        RunStore store(dbPath("list.db"));
        writeRun(store, "r1", RunStatus::Completed, "mlp", "fmnist", 100);
        writeRun(store, "r2", RunStatus::Failed, "resnet20", "cifar10", 200);
        writeRun(store, "r3", RunStatus::Completed, "resnet20", "fmnist", 300);
        store.addTag("r1", "baseline");
        store.addTag("r3", "baseline");
        auto ids = [](const std::vector<RunRecord>& runs) {
            std::string out;
            for (const auto& r : runs)
                out += r.id + " ";
            return out;
        };
        QCOMPARE(ids(store.listRuns()), std::string("r3 r2 r1 "));
        QCOMPARE(ids(store.listRuns({RunStatus::Completed, {}, {}, {}, 0})), std::string("r3 r1 "));
        QCOMPARE(ids(store.listRuns({{}, "resnet20", {}, {}, 0})), std::string("r3 r2 "));
        QCOMPARE(ids(store.listRuns({{}, {}, "fmnist", {}, 0})), std::string("r3 r1 "));
        QCOMPARE(ids(store.listRuns({{}, {}, {}, "baseline", 0})), std::string("r3 r1 "));
        QCOMPARE(ids(store.listRuns({{}, "resnet20", "fmnist", "baseline", 0})),
                 std::string("r3 "));
        QCOMPARE(ids(store.listRuns({{}, {}, {}, {}, 2})), std::string("r3 r2 "));
        QCOMPARE(store.listRuns().back().tags, std::vector<std::string>{"baseline"});
    }

    void resolvesUniquePrefixes() {
        RunStore store(dbPath("prefix.db"));
        writeRun(store, "20260101-000000-aaaa", RunStatus::Completed);
        writeRun(store, "20260101-000000-aabb", RunStatus::Completed);
        writeRun(store, "20260102-000000-cccc", RunStatus::Completed);
        QCOMPARE(store.getRun("20260102").id, std::string("20260102-000000-cccc"));
        QCOMPARE(store.resolveId("20260101-000000-aab"), std::string("20260101-000000-aabb"));
        try {
            store.getRun("20260101");
            QFAIL("an ambiguous prefix must throw");
        } catch (const StoreError& e) {
            QCOMPARE(e.kind(), StoreError::Kind::NotFound);
            QVERIFY2(std::string(e.what()).find("matches several runs") != std::string::npos,
                     e.what());
        }
        try {
            store.getRun("nope");
            QFAIL("an unknown id must throw");
        } catch (const StoreError& e) {
            QCOMPARE(e.kind(), StoreError::Kind::NotFound);
            QVERIFY2(std::string(e.what()).find("no run with id 'nope'") != std::string::npos,
                     e.what());
        }
    }

    void awkwardTextRoundTrips_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("quotes") << "it's a \"quoted\" name";
        QTest::newRow("sql") << "x'); DROP TABLE runs; --";
        QTest::newRow("unicode") << QString::fromUtf8("Ünïcødé 训练 🚀 résumé");
        QTest::newRow("percent-underscore") << "100% _tag_ *?";
        QTest::newRow("newlines") << "line one\nline two\ttab";
        QTest::newRow("empty") << "";
    }

    void awkwardTextRoundTrips() {
        QFETCH(QString, text);
        const std::string t = text.toStdString();
        RunStore store(
            m_dir.filePath(QString("text-%1.db").arg(QTest::currentDataTag())).toStdString());
        const std::string id = "run 'x'";
        writeRun(store, id, RunStatus::Completed);
        store.rename(id, t);
        store.setNotes(id, t + " notes");
        store.addTag(id, t);
        const RunRecord r = store.getRun(id);
        QCOMPARE(r.name, t);
        QCOMPARE(r.notes, t + " notes");
        QCOMPARE(r.tags, std::vector<std::string>{t});
        QCOMPARE(store.listRuns({{}, {}, {}, t, 0}).size(), std::size_t{1});
        store.removeTag(id, t);
        QVERIFY(store.getRun(id).tags.empty());
    }

    // `--set tags=a,b` (and an experiment's arms) tag the run the moment it starts.
    void configTagsTagTheRun() {
        RunStore store(dbPath("config-tags.db"));
        RunStartedEvent e;
        e.runId = "tagged";
        e.config = {{"model", "mlp"}, {"tags", {"experiment:lr", "arm:lr=0.1"}}};
        store.beginRun(e, 1.0);
        QCOMPARE(store.getRun("tagged").tags,
                 (std::vector<std::string>{"arm:lr=0.1", "experiment:lr"}));
    }

    void editsOfUnknownRunsThrow() {
        RunStore store(dbPath("edits.db"));
        QVERIFY_THROWS_EXCEPTION(StoreError, store.rename("missing", "x"));
        QVERIFY_THROWS_EXCEPTION(StoreError, store.setNotes("missing", "x"));
        QVERIFY_THROWS_EXCEPTION(StoreError, store.addTag("missing", "x"));
        QVERIFY_THROWS_EXCEPTION(StoreError, store.deleteRun("missing"));
    }

    void deleteCascades() {
        RunStore store(dbPath("delete.db"));
        writeRun(store, "keep", RunStatus::Completed);
        writeRun(store, "gone", RunStatus::Completed);
        store.addTag("gone", "t");
        store.deleteRun("gone");
        for (const char* table :
             {"step_metrics", "epoch_metrics", "system_samples", "events", "tags"}) {
            const std::string sql =
                std::string("SELECT count(*) FROM ") + table + " WHERE run_id = 'gone'";
            QCOMPARE(scalar(store.db(), sql), int64_t{0});
        }
        QCOMPARE(scalar(store.db(), "SELECT count(*) FROM gpu_samples"), int64_t{1});
        QCOMPARE(store.stepMetrics("keep").size(), std::size_t{20});
    }

    void resumeUnderSameIdDropsReplayedSteps() {
        RunStore store(dbPath("resume.db"));
        writeRun(store, "r", RunStatus::Stopped);
        RunStartedEvent again = runStarted("r", "");
        again.resumed = true;
        again.resumedFromStep = 10;
        store.beginTransaction();
        store.beginRun(again, 2000.0);
        store.commit();
        const RunRecord r = store.getRun("r");
        QCOMPARE(toString(r.status), toString(RunStatus::Running));
        QCOMPARE(r.name, std::string("name of r")); // an empty name keeps the old one
        QCOMPARE(r.resumedFromStep, int64_t{10});
        QCOMPARE(store.stepMetrics("r").size(), std::size_t{10});
        QCOMPARE(store.epochMetrics("r").size(), std::size_t{1});
    }

    void marksRunsOfDeadWritersInterrupted() {
        const std::string path = dbPath("orphans.db");
        {
            RunStore store(path);
            for (const char* id : {"dead", "alive", "elsewhere"}) {
                store.beginTransaction();
                store.beginRun(runStarted(id), 1000.0);
                store.addStep(id, step(1));
                store.commit();
            }
            // Above pid_max's ceiling (2^22): no such process can exist.
            store.db().exec("UPDATE runs SET writer_pid = 4194400 WHERE id = 'dead'");
            store.db().exec("UPDATE runs SET writer_pid = 4194400, writer_host = "
                            "'another-host' WHERE id = 'elsewhere'");
        }
        RunStore store(path);
        QCOMPARE(toString(store.getRun("dead").status), toString(RunStatus::Interrupted));
        QCOMPARE(store.getRun("dead").endedAt.value_or(0), step(1).unixTime);
        QVERIFY(store.getRun("dead").error.find("4194400") != std::string::npos);
        QCOMPARE(toString(store.getRun("alive").status),
                 toString(RunStatus::Running)); // this process
        QCOMPARE(toString(store.getRun("elsewhere").status),
                 toString(RunStatus::Running)); // cannot tell
        QCOMPARE(store.markInterrupted(), 0);
    }

    // A store of a newer TrainBench is not written (not even to upgrade it) but can be read:
    // for queries it opens read-only and says so.
    void newerSchemaIsOnlyRead() {
        const std::string path = dbPath("newer.db");
        {
            RunStore store(path);
            store.beginTransaction();
            store.beginRun(runStarted("r"), 1.0);
            store.commit();
            store.db().exec("PRAGMA user_version = " + std::to_string(currentSchemaVersion() + 7));
        }
        try {
            RunStore store(path);
            QFAIL("a newer schema must not be written");
        } catch (const StoreError& e) {
            QCOMPARE(e.kind(), StoreError::Kind::TooNew);
            QCOMPARE(e.path(), path);
            const std::string what = e.what();
            QVERIFY2(what.find(path) != std::string::npos, e.what());
            QVERIFY2(what.find("newer TrainBench") != std::string::npos, e.what());
        }
        const std::unique_ptr<RunStore> reader = openRunStoreForQueries(path);
        QVERIFY(reader->newerSchema());
        QCOMPARE(reader->listRuns().size(), std::size_t{1});
        SqliteDb raw(path, true, std::chrono::milliseconds(0));
        QCOMPARE(scalar(raw, "PRAGMA user_version"), int64_t{currentSchemaVersion() + 7});
    }

    void colourIsStoredWithTheRun() {
        const std::string path = dbPath("colour.db");
        RunStore store(path);
        store.beginTransaction();
        store.beginRun(runStarted("r"), 1.0);
        store.commit();
        QVERIFY(store.getRun("r").color.empty());
        store.setColor("r", "#1f77b4");
        QCOMPARE(store.getRun("r").color, std::string("#1f77b4"));
        QVERIFY_THROWS_EXCEPTION(StoreError, store.setColor("nope", "#000000"));
    }

    // Schema 3: an epoch's confusion matrix and misses come back as written; a row edited into
    // nonsense, or one recorded before version 3, reads as no report with its metrics intact.
    void validationReportRoundTrips() {
        RunStore store(dbPath("validation.db"));
        store.beginTransaction();
        store.beginRun(runStarted("v"), 1.0);
        EpochEvent e = epoch(1, 0.5);
        e.validation.classes = 2;
        e.validation.classNames = {"cat", "dog \"quoted\""};
        e.validation.confusion = {3, 1, 2, 4};
        MisclassifiedSample miss;
        miss.index = 7;
        miss.label = 0;
        miss.predicted = 1;
        miss.confidence = 0.625f;
        miss.pixels = {1, 2, 3}; // not stored: the dataset has them
        e.validation.misclassified = {miss};
        store.addEpoch("v", e);
        store.addEpoch("v", epoch(2, 0.6)); // no report
        store.commit();
        const std::vector<EpochEvent> rows = store.epochMetrics("v");
        QCOMPARE(rows.size(), std::size_t{2});
        const ValidationReport& r = rows[0].validation;
        QCOMPARE(r.classes, 2);
        QCOMPARE(r.classNames, e.validation.classNames);
        QCOMPARE(r.confusion, e.validation.confusion);
        QCOMPARE(r.count(1, 0), int64_t{2});
        QCOMPARE(r.misclassified.size(), std::size_t{1});
        QCOMPARE(r.misclassified[0].index, int64_t{7});
        QCOMPARE(r.misclassified[0].predicted, 1);
        QCOMPARE(r.misclassified[0].confidence, 0.625f);
        QVERIFY(r.misclassified[0].pixels.empty());
        QCOMPARE(rows[1].validation.classes, 0);
        QCOMPARE(scalar(store.db(), "SELECT count(*) FROM epoch_metrics WHERE validation IS NULL"),
                 int64_t{1});

        store.db().exec("UPDATE epoch_metrics SET validation = '{\"classes\": [\"a\"], "
                        "\"confusion\": [[1, 2]]}' WHERE epoch = 1",
                        "editing the row");
        const std::vector<EpochEvent> edited = store.epochMetrics("v");
        QCOMPARE(edited[0].validation.classes, 0);
        QCOMPARE(edited[0].valAcc, rows[0].valAcc);
    }

    void olderSchemaIsUpgradedOnce() {
        const std::string path = dbPath("old.db");
        {
            SqliteDb raw(path, false, std::chrono::milliseconds(1000));
            raw.exec("PRAGMA user_version = 0"); // version 0 and no tables: a new database
        }
        { RunStore first(path); }
        RunStore second(path);
        QCOMPARE(schemaVersion(second.db()), currentSchemaVersion());
        QCOMPARE(scalar(second.db(), "SELECT count(*) FROM sqlite_schema WHERE name = 'runs'"),
                 int64_t{1});
    }

    void readOnlyOpenReads() {
        const std::string path = dbPath("ro.db");
        {
            RunStore store(path);
            writeRun(store, "r", RunStatus::Completed);
        }
        RunStoreOptions options;
        options.readOnly = true;
        RunStore store(path, options);
        QCOMPARE(store.listRuns().size(), std::size_t{1});
        QCOMPARE(store.stepMetrics("r").size(), std::size_t{20});
    }
};

QTEST_GUILESS_MAIN(TestRunStore)
#include "tst_runstore.moc"

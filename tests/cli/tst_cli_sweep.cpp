// trainbench-cli sweep as a user runs it: a grid's trials become tagged runs with their values;
// a sweep stopped by SIGTERM mid-trial resumes and ends with every trial completed once; a grid
// given on the command line trains two trials at once, each on its share of the cores, and
// `runs importance` ranks its keys; halving stops the trials that fall behind at a rung and a
// second invocation trains nothing; a bad file is refused naming the file and the key, with
// nothing trained.
#include "clirun.h"

#include "store/runstore.h"
#include "store/runsummary.h"
#include "support/buildtree.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <algorithm>
#include <map>
#include <set>

using namespace tb;
using namespace tb::test;

namespace {

QString writeSweep(const QTemporaryDir& home, const QString& name, int samples) {
    const QString path = home.filePath(name + ".json");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(QString(R"({"name": "%1", "method": "grid", "metric": "final_val_loss",
      "config": {"dataset": "blobs", "data.synthetic_samples": %2, "model": "mlp",
                 "max_epochs": 2, "device": "cpu", "threads": 1},
      "parameters": {"lr": {"values": [0.01, 0.1]}, "batch_size": {"values": [16, 64]}}})")
                .arg(name)
                .arg(samples)
                .toUtf8());
    return path;
}

std::vector<RunRecord> runsOf(const QTemporaryDir& home, const std::string& sweep) {
    RunFilter filter;
    filter.tag = "sweep:" + sweep;
    return RunStore(home.filePath("TrainBench/runs.db").toStdString()).listRuns(filter);
}

} // namespace

class TestCliSweep : public QObject {
    Q_OBJECT

private slots:
    void gridTrialsAreTaggedRuns() {
        QTemporaryDir home;
        const QString file = writeSweep(home, "grid", 400);
        const CliResult r = runCli({"sweep", file, "--json", "--quiet"}, home.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject out = lastJsonLine(r.out);
        QCOMPARE(out["trials"].toArray().size(), 4);
        QCOMPARE(out["goal"].toString(), QStringLiteral("minimize"));
        const QJsonArray best = out["best"].toArray();
        QCOMPARE(best.size(), 4);
        for (int i = 1; i < best.size(); ++i) // lowest loss first
            QVERIFY(best[i - 1].toObject()["metric"].toDouble() <=
                    best[i].toObject()["metric"].toDouble());
        const std::vector<RunRecord> runs = runsOf(home, "grid");
        QCOMPARE(runs.size(), std::size_t{4});
        std::set<std::string> seen;
        for (const RunRecord& run : runs) {
            QCOMPARE(toString(run.status), std::string("completed"));
            const std::string values = std::to_string(run.config.value("batch_size", 0)) + "/" +
                                       run.config.value("lr", nlohmann::json()).dump();
            seen.insert(values);
            QVERIFY(std::find_if(run.tags.begin(), run.tags.end(), [](const std::string& t) {
                        return t.rfind("trial:", 0) == 0;
                    }) != run.tags.end());
        }
        QCOMPARE(seen.size(), std::size_t{4}); // every combination, once
    }

    // SIGTERM during the second trial: the sweep stops (exit 130) with that trial's run
    // stopped; run again, it trains the three trials not completed, and every trial ends with
    // exactly one completed run.
    void anInterruptedSweepResumes() {
        QTemporaryDir home;
        const QString file = writeSweep(home, "resume", 300000); // trial 2 takes seconds
        QProcess sweep;
        prepareCli(sweep, home.path());
        sweep.start(test::cliPath(), {"sweep", file});
        QVERIFY(sweep.waitForStarted());
        QString err;
        QTRY_VERIFY_WITH_TIMEOUT((err += sweep.readAllStandardError()).contains("trial 2/4") ||
                                     sweep.state() == QProcess::NotRunning,
                                 120000);
        QVERIFY2(sweep.state() == QProcess::Running, qPrintable(err));
        sweep.terminate();
        QVERIFY(sweep.waitForFinished(120000));
        QCOMPARE(sweep.exitCode(), 130);
        std::map<std::string, int> completed;
        int stopped = 0;
        for (const RunRecord& run : runsOf(home, "resume")) {
            completed[run.name] += run.status == RunStatus::Completed;
            stopped += run.status == RunStatus::Stopped;
        }
        QCOMPARE(stopped, 1);

        const CliResult again = runCli({"sweep", file, "--json"}, home.path());
        QVERIFY2(again.code == 0, qPrintable(again.err));
        QVERIFY2(again.err.contains("done earlier"), qPrintable(again.err));
        int resumed = 0;
        for (const QJsonValue t : lastJsonLine(again.out)["trials"].toArray())
            resumed += t.toObject()["resumed"].toBool();
        QCOMPARE(resumed, 1);
        completed.clear();
        for (const RunRecord& run : runsOf(home, "resume"))
            completed[run.name] += run.status == RunStatus::Completed;
        QCOMPARE(completed.size(), std::size_t{4});
        for (const auto& [name, count] : completed)
            QVERIFY2(count == 1, name.c_str());
    }

    void aCommandLineGridInParallel() {
        QTemporaryDir home;
        const QStringList args = {"sweep",
                                  "--grid",
                                  "lr=0.003,0.01,0.03,0.1",
                                  "--grid",
                                  "batch_size=16,64",
                                  "--set",
                                  "dataset=blobs",
                                  "--set",
                                  "data.synthetic_samples=400",
                                  "--set",
                                  "model=mlp",
                                  "--set",
                                  "max_epochs=2",
                                  "--set",
                                  "device=cpu",
                                  "--metric",
                                  "final_val_loss",
                                  "--parallel",
                                  "2",
                                  "--json",
                                  "--quiet"};
        const CliResult r = runCli(args, home.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject out = lastJsonLine(r.out);
        const std::string name = out["sweep"].toString().toStdString();
        QVERIFY2(name.rfind("grid-", 0) == 0, name.c_str());
        QCOMPARE(out["trials"].toArray().size(), 8);
        const std::vector<RunRecord> runs = runsOf(home, name);
        QCOMPARE(runs.size(), std::size_t{8});
        std::set<std::string> seen;
        const int share = std::max(1, QThread::idealThreadCount() / 2);
        for (const RunRecord& run : runs) {
            QCOMPARE(toString(run.status), std::string("completed"));
            QCOMPARE(run.config.value("threads", 0), share); // the cores split between two
            seen.insert(run.config["lr"].dump() + "/" + run.config["batch_size"].dump());
        }
        QCOMPARE(seen.size(), std::size_t{8});

        // The same command line is the same sweep: nothing left to train.
        const CliResult again = runCli(args, home.path());
        QVERIFY2(again.code == 0, qPrintable(again.err));
        for (const QJsonValue t : lastJsonLine(again.out)["trials"].toArray())
            QVERIFY(t.toObject()["resumed"].toBool());
        QCOMPARE(runsOf(home, name).size(), std::size_t{8});

        const CliResult importance =
            runCli({"runs", "importance", "--tag", QString::fromStdString("sweep:" + name),
                    "--metric", "val/loss", "--json"},
                   home.path());
        QVERIFY2(importance.code == 0, qPrintable(importance.err));
        const QJsonObject report = lastJsonLine(importance.out);
        QCOMPARE(report["runs"].toInt(), 8);
        QVERIFY(report["enough_runs"].toBool());
        QStringList keys;
        for (const QJsonValue k : report["keys"].toArray())
            keys << k.toObject()["key"].toString();
        keys.sort();
        QCOMPARE(keys, (QStringList{"batch_size", "lr"}));
        const CliResult few =
            runCli({"runs", "importance", QString::fromStdString(runs[0].id),
                    QString::fromStdString(runs[1].id), "--metric", "best_val_acc"},
                   home.path());
        QVERIFY2(few.code == 0, qPrintable(few.err));
        QVERIFY2(few.out.contains("not enough runs: 2"), qPrintable(few.out));
    }

    // Detectors are swept by their own score: best_map50_95 ranks the trials (highest first)
    // as each run's best validation mAP50-95, and a classifier's run has none.
    void detectorsAreSweptByMap() {
        QTemporaryDir home;
        const CliResult r = runCli({"sweep",
                                    "--grid",
                                    "lr=0.0005,0.002",
                                    "--set",
                                    "dataset=shapes-detect",
                                    "--set",
                                    "data.imgsz=64",
                                    "--set",
                                    "data.synthetic_samples=40",
                                    "--set",
                                    "batch_size=8",
                                    "--set",
                                    "max_epochs=2",
                                    "--set",
                                    "device=cpu",
                                    "--set",
                                    "threads=1",
                                    "--metric",
                                    "best_map50_95",
                                    "--json",
                                    "--quiet"},
                                   home.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject out = lastJsonLine(r.out);
        QCOMPARE(out["goal"].toString(), QStringLiteral("maximize"));
        const QJsonArray best = out["best"].toArray();
        QCOMPARE(best.size(), 2);
        QVERIFY(best[0].toObject()["metric"].toDouble() >= best[1].toObject()["metric"].toDouble());
        const std::vector<RunRecord> runs = runsOf(home, out["sweep"].toString().toStdString());
        QCOMPARE(runs.size(), std::size_t{2});
        for (const RunRecord& run : runs) {
            QCOMPARE(run.model, std::string("yolov8n"));
            QVERIFY(summaryValue(run, "best_map50_95").has_value());
            QCOMPARE(*summaryValue(run, "best_map50_95"), *run.bestValAcc);
        }
        RunRecord classifier = runs[0];
        classifier.dataset = "shapes";
        QVERIFY(!summaryValue(classifier, "best_map50_95").has_value());
    }

    // lr 0.1 learns in the first epoch; the two tiny learning rates after it barely move, so
    // at the rung after epoch 1 each is behind the best and stops there.
    void halvingStopsTrialsThatFallBehind() {
        QTemporaryDir home;
        const QString file = home.filePath("halving.json");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"name": "halving", "method": "halving", "metric": "final_val_loss",
          "budget": {"unit": "epochs", "min": 1, "max": 3, "reduction": 3},
          "config": {"dataset": "blobs", "data.synthetic_samples": 600, "model": "mlp",
                     "device": "cpu", "threads": 1, "optimizer": "sgd"},
          "parameters": {"lr": {"values": [0.1, 1e-06, 2e-06]}}})");
        f.close();
        const CliResult r = runCli({"sweep", file, "--json"}, home.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("stopped early after 1 epoch "), qPrintable(r.err));
        const QJsonArray trials = lastJsonLine(r.out)["trials"].toArray();
        QCOMPARE(trials.size(), 3);
        QVERIFY(!trials[0].toObject().contains("halted_at"));
        QCOMPARE(trials[1].toObject()["halted_at"].toInt(), 1);
        QCOMPARE(trials[2].toObject()["halted_at"].toInt(), 1);
        QCOMPARE(lastJsonLine(r.out)["best"].toArray().size(), 1); // the one that completed
        for (const RunRecord& run : runsOf(home, "halving")) {
            const bool halted =
                std::find(run.tags.begin(), run.tags.end(), "halted") != run.tags.end();
            QCOMPARE(run.epochs, halted ? int64_t{1} : int64_t{3});
            QCOMPARE(toString(run.status), std::string(halted ? "stopped" : "completed"));
        }
        const CliResult again = runCli({"sweep", file, "--json", "--quiet"}, home.path());
        QVERIFY2(again.code == 0, qPrintable(again.err));
        for (const QJsonValue t : lastJsonLine(again.out)["trials"].toArray())
            QVERIFY(t.toObject()["resumed"].toBool());
        QCOMPARE(runsOf(home, "halving").size(), std::size_t{3});
    }

    void aBadFileTrainsNothing() {
        QTemporaryDir home;
        const QString file = home.filePath("bad.json");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"name": "bad", "method": "grid", "metric": "best_val_acc",
                    "parameters": {"batch_size": {"values": [32, 0]}}})");
        f.close();
        const CliResult r = runCli({"sweep", file}, home.path());
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains(file + ": parameters.batch_size.values[1]"), qPrintable(r.err));
        QVERIFY(!QFile::exists(home.filePath("TrainBench/runs.db")) || runsOf(home, "bad").empty());
    }
};

QTEST_GUILESS_MAIN(TestCliSweep)
#include "tst_cli_sweep.moc"

// trainbench-cli sweep as a user runs it: a grid's trials become tagged runs with their values;
// a sweep stopped by SIGTERM mid-trial resumes and ends with every trial completed once; a bad
// file is refused naming the file and the key, with nothing trained.
#include "clirun.h"

#include "store/runstore.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
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
        sweep.start(TB_CLI_PATH, {"sweep", file});
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

// trainbench-cli and the run store, tried as a hostile user would: a resume that fails, a
// database locked by another program, exports aimed at the store, a full stdout and a
// read-only mount must never lose or hide a recorded run.
#include "clirun.h"

#include "store/runstore.h"
#include "store/sqlitedb.h"
#include "support/buildtree.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <cmath>
#include <csignal>

using namespace tb;
using namespace tb::test;

namespace {

const QStringList kSmallRun{"--set", "dataset=blobs", "--set", "model=mlp",
                            "--set", "max_epochs=1",  "--set", "device=cpu"};

QString databaseOf(const QTemporaryDir& home) {
    return home.filePath("TrainBench/runs.db");
}

// Trains the small run to completion (with extra --set values); returns its id.
QString trainSmallRun(const QTemporaryDir& home, const QStringList& extra = {}) {
    const CliResult r =
        runCli(QStringList{"train", "--json", "--quiet"} + kSmallRun + extra, home.path());
    if (r.code != 0)
        qWarning("%s", qPrintable(r.err));
    return lastJsonLine(r.out)["run_id"].toString();
}

// The id of a run that is still running, read as another program would; empty when none.
QString lastRunningId(const QTemporaryDir& home) {
    const CliResult r = runCli({"runs", "list", "--status", "running", "--json"}, home.path());
    const QJsonArray runs = QJsonDocument::fromJson(r.out.toUtf8()).array();
    return runs.isEmpty() ? QString() : runs.first().toObject()["id"].toString();
}

} // namespace

class TestCliStore : public QObject {
    Q_OBJECT

private slots:
    // train --resume that fails in setup used to mark the finished run failed and delete
    // every one of its steps and epochs.
    void failedResumeKeepsTheFinishedRun_data() {
        QTest::addColumn<QStringList>("change");
        QTest::newRow("model shapes") << QStringList{"--set", "model.hidden=64"};
        QTest::newRow("missing device") << QStringList{"--set", "device=cuda:7"};
    }
    void failedResumeKeepsTheFinishedRun() {
        QFETCH(QStringList, change);
        QTemporaryDir home;
        const QString id = trainSmallRun(home);
        QVERIFY(!id.isEmpty());
        const std::string runId = id.toStdString();
        RunStore before(databaseOf(home).toStdString());
        const RunRecord done = before.getRun(runId);
        const std::size_t steps = before.stepMetrics(runId).size();
        QVERIFY(steps > 0);

        const CliResult r =
            runCli(QStringList{"train", "--quiet", "--resume", id} + change, home.path());
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("error:"), qPrintable(r.err));

        RunStore after(databaseOf(home).toStdString());
        const RunRecord now = after.getRun(runId);
        QCOMPARE(toString(now.status), std::string("completed"));
        QCOMPARE(now.steps, done.steps);
        QCOMPARE(now.epochs, done.epochs);
        QCOMPARE(now.config.dump(), done.config.dump());
        QCOMPARE(after.stepMetrics(runId).size(), steps);
        QCOMPARE(after.epochMetrics(runId).size(), std::size_t(done.epochs));
    }

    // Another program holds the write lock (a sqlite3 session in BEGIN EXCLUSIVE, a DB browser
    // saving) while a run trains: the run used to exit 0 without ever being recorded.
    void lockedStoreRecordsTheRunOnceTheLockGoes() {
        QTemporaryDir home;
        const std::string path = databaseOf(home).toStdString();
        { RunStore create(path); }
        SqliteDb holder(path, false, std::chrono::milliseconds(0));
        holder.exec("BEGIN EXCLUSIVE");

        QProcess p;
        prepareCli(p, home.path());
        p.start(test::cliPath(), QStringList{"train", "--json", "--quiet"} + kSmallRun);
        QVERIFY(p.waitForStarted());
        QByteArray err; // accumulated: QTRY re-evaluates its expression
        QTRY_VERIFY_WITH_TIMEOUT((err += p.readAllStandardError())
                                         .contains("waiting for the run "
                                                   "database") ||
                                     p.state() == QProcess::NotRunning,
                                 60000);
        holder.exec("ROLLBACK");
        const CliResult r = finishCli(p, 120000);
        err += r.err.toUtf8();
        QVERIFY2(r.code == 0, err.constData());
        QVERIFY2(err.contains("waiting for the run database"), err.constData());
        const std::string id = lastJsonLine(r.out)["run_id"].toString().toStdString();
        RunStore store(path);
        QCOMPARE(toString(store.getRun(id).status), std::string("completed"));
        QVERIFY(!store.stepMetrics(id).empty());
        QCOMPARE(store.epochMetrics(id).size(), std::size_t{1});
    }

    // Training is over and the store stays locked: the first SIGTERM (what `timeout` sends)
    // ends the wait for it at once, instead of being ignored for up to a minute, and says what
    // was not recorded.
    void sigtermEndsTheWaitForALockedStore() {
        QTemporaryDir home;
        const std::string path = databaseOf(home).toStdString();
        { RunStore create(path); }
        SqliteDb holder(path, false, std::chrono::milliseconds(0));
        holder.exec("BEGIN EXCLUSIVE");
        QProcess p;
        prepareCli(p, home.path());
        p.start(test::cliPath(), QStringList{"train", "--json", "--quiet"} + kSmallRun);
        QVERIFY(p.waitForStarted());
        QByteArray err;
        QTRY_VERIFY_WITH_TIMEOUT(
            (err += p.readAllStandardError()).contains("to record the rest of this run") ||
                p.state() == QProcess::NotRunning,
            120000);
        QVERIFY2(p.state() == QProcess::Running, err.constData());
        ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
        // At once, even inside a write that waits out SQLite's busy timeout (5 s a try).
        QVERIFY(p.waitForFinished(4000));
        err += p.readAllStandardError();
        holder.exec("ROLLBACK");
        QCOMPARE(p.exitCode(), 128 + SIGTERM);
        QVERIFY2(err.contains("could not be recorded"), err.constData());
    }

    // A series of several runs side by side and per group, read from the store.
    void compareSeriesAndGroups() {
        QTemporaryDir home;
        const QString a = trainSmallRun(home, {"--set", "lr=0.05", "--set", "max_epochs=2"});
        const QString b =
            trainSmallRun(home, {"--set", "lr=0.05", "--set", "max_epochs=2", "--set", "seed=1"});
        const QString c = trainSmallRun(home, {"--set", "lr=0.2", "--set", "max_epochs=2"});
        CliResult r =
            runCli({"runs", "compare", a, b, c, "--metric", "val/acc", "--x", "epoch", "--json"},
                   home.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QJsonObject j = lastJsonLine(r.out);
        QCOMPARE(j["runs"].toArray().size(), 3);
        const QJsonObject first = j["runs"].toArray().first().toObject();
        QCOMPARE(first["x"].toArray().size(), 2); // an epoch each
        QCOMPARE(first["x"].toArray().at(1).toDouble(), 2.0);
        const CliResult shown = runCli({"runs", "show", a, "--json"}, home.path());
        const double best =
            QJsonDocument::fromJson(shown.out.toUtf8()).object()["best_val_acc"].toDouble();
        const QJsonArray ys = first["y"].toArray();
        QVERIFY(std::abs(std::max(ys[0].toDouble(), ys[1].toDouble()) - 100.0 * best) < 1e-9);

        r = runCli({"runs", "compare", a, b, c, "--metric", "val/acc", "--x", "epoch", "--group-by",
                    "lr", "--json"},
                   home.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        j = lastJsonLine(r.out);
        const QJsonArray groups = j["groups"].toArray();
        QCOMPARE(groups.size(), 2);
        QCOMPARE(groups[0].toObject()["label"].toString(), QString("lr=0.05"));
        QCOMPARE(groups[0].toObject()["run_ids"].toArray().size(), 2);

        r = runCli({"runs", "compare", a, "--metric", "val/accuracy"}, home.path());
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("--metric") && r.err.contains("val/acc"), qPrintable(r.err));
        r = runCli({"runs", "compare", a, b, "--target", "0.5"}, home.path());
        QVERIFY2(r.code == 0 && r.out.contains("val acc 50.0%: samples"), qPrintable(r.out));
    }

    // Several runs export in long format: run,series,x,value, every point of every series.
    void exportOfSeveralRunsIsLong() {
        QTemporaryDir home;
        const QString a = trainSmallRun(home), b = trainSmallRun(home);
        const CliResult r =
            runCli({"runs", "export", a, b, "--format", "csv", "--x", "samples"}, home.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QStringList lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.first(), QString("run,series,samples,value"));
        QVERIFY(lines.filter(a + ",train/loss,").size() > 0);
        QVERIFY(lines.filter(b + ",val/acc,").size() == 1);
        RunStore store(databaseOf(home).toStdString());
        QCOMPARE(lines.filter(a + ",train/loss,").size(),
                 qsizetype(store.stepMetrics(a.toStdString()).size()));
    }

    // `profile --from RUN` measures a stored run again from its checkpoint and keeps the profile
    // with that run, recording no run of its own; an unknown run or one without the store is a
    // clear error.
    void profileFromAStoredRunKeepsItWithTheRun() {
        QTemporaryDir home;
        const QString id = trainSmallRun(home);
        QVERIFY(!id.isEmpty());
        const CliResult r = runCli({"profile", "--from", id, "--steps", "2", "--warmup", "1",
                                    "--set", "precision=bf16-mixed", "--json"},
                                   home.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject profile = lastJsonLine(r.out);
        QCOMPARE(profile["run_id"].toString(), id);
        QCOMPARE(profile["precision"].toString(), QString("bf16-mixed"));
        RunStore store(databaseOf(home).toStdString());
        QCOMPARE(store.listRuns().size(), std::size_t{1});
        const std::vector<ProfileReport> kept = store.profiles(id.toStdString());
        QCOMPARE(kept.size(), std::size_t{1});
        QCOMPARE(kept.front().precision, std::string("bf16-mixed"));

        // A second profile of the same run at 32, and the two side by side.
        QCOMPARE(
            runCli({"profile", "--from", id, "--steps", "2", "--warmup", "1"}, home.path()).code,
            0);
        const CliResult compared =
            runCli({"runs", "profile", id + "@1", id, "--json"}, home.path());
        QVERIFY2(compared.code == 0, qPrintable(compared.err));
        const QJsonObject c = lastJsonLine(compared.out);
        QCOMPARE(c["a"].toObject()["precision"].toString(), QString("bf16-mixed"));
        QCOMPARE(c["b"].toObject()["precision"].toString(), QString("32"));
        QVERIFY2(c["summary"].toArray().first().toString().contains("precision bf16-mixed -> 32"),
                 qPrintable(c["summary"].toArray().first().toString()));
        QVERIFY(c["rows"].toArray().size() >= qsizetype(kept.front().rows.size()));
        const CliResult text = runCli({"runs", "profile", id + "@1", id + "@2"}, home.path());
        QVERIFY2(text.out.contains("bound A -> B"), qPrintable(text.out));
        const CliResult third = runCli({"runs", "profile", id + "@3"}, home.path());
        QCOMPARE(third.code, 1);
        QVERIFY2(third.err.contains("has 2 profile(s), not 3"), qPrintable(third.err));

        const CliResult unknown = runCli({"profile", "--from", "nosuchrun"}, home.path());
        QCOMPARE(unknown.code, 1);
        QVERIFY2(unknown.err.contains("nosuchrun"), qPrintable(unknown.err));
        const CliResult noStore = runCli({"profile", "--from", id, "--no-db"}, home.path());
        QCOMPARE(noStore.code, 1);
        QVERIFY2(noStore.err.contains("--from"), qPrintable(noStore.err));
    }

    // A GPT on a small text: the progress speaks in tokens and bits per character, the epoch
    // ends with what the model writes (kept in the store and the JSON), and `generate`
    // continues a prompt from the run, the same seed giving the same text; a character the
    // vocabulary lacks and a run of another kind are refused naming the problem.
    void generateFromATextRun() {
        QTemporaryDir home;
        QFile text(home.filePath("corpus.txt"));
        QVERIFY(text.open(QIODevice::WriteOnly));
        for (int i = 0; i < 300; ++i)
            text.write("to be or not to be, that is the question.\n");
        text.close();
        const CliResult train = runCli({"train", "--json",
                                        "--set", "dataset=text",
                                        "--set", "data.root=" + text.fileName(),
                                        "--set", "data.block_size=16",
                                        "--set", "model=gpt",
                                        "--set", "model.n_layer=1",
                                        "--set", "model.n_embd=32",
                                        "--set", "model.n_head=2",
                                        "--set", "optimizer=adamw",
                                        "--set", "lr=0.01",
                                        "--set", "max_epochs=1",
                                        "--set", "device=cpu"},
                                       home.path());
        QVERIFY2(train.code == 0, qPrintable(train.err));
        QVERIFY2(train.err.contains("tokens/s") && train.err.contains("bits/char"),
                 qPrintable(train.err));
        QVERIFY2(train.err.contains("sample after epoch 1:"), qPrintable(train.err));
        const QJsonObject summary = lastJsonLine(train.out);
        const QString id = summary["run_id"].toString();
        const QString sample =
            summary["per_epoch"].toArray().first().toObject()["sample"].toString();
        QVERIFY(!sample.isEmpty());
        RunStore store(databaseOf(home).toStdString());
        QCOMPARE(QString::fromStdString(store.epochMetrics(id.toStdString(), 0).front().sample),
                 sample);

        const QStringList ask{"generate", id,       "--prompt", "to be", "--tokens",
                              "30",       "--seed", "3",        "--json"};
        const CliResult first = runCli(ask, home.path());
        QVERIFY2(first.code == 0, qPrintable(first.err));
        const QString written = lastJsonLine(first.out)["text"].toString();
        QVERIFY(written.startsWith("to be"));
        QCOMPARE(written.size(), 5 + 30); // one character a token
        QCOMPARE(lastJsonLine(runCli(ask, home.path()).out)["text"].toString(), written);
        const CliResult plain = runCli({"generate", id, "--tokens", "10"}, home.path());
        QVERIFY2(plain.code == 0, qPrintable(plain.err));
        // Temperature 0 is greedy, as llama.cpp and Hugging Face read it: the same text as
        // --top-k 1 whatever the seed; a negative one is refused.
        const auto greedy = [&](const QStringList& extra) {
            const CliResult g = runCli(
                QStringList{"generate", id, "--prompt", "to be", "--tokens", "30", "--json"} +
                    extra,
                home.path());
            return g.code == 0 ? lastJsonLine(g.out)["text"].toString() : g.err;
        };
        const QString atZero = greedy({"--temperature", "0", "--seed", "1"});
        QCOMPARE(atZero.size(), 5 + 30);
        QCOMPARE(greedy({"--temperature", "0", "--seed", "9"}), atZero);
        QCOMPARE(greedy({"--top-k", "1", "--seed", "4"}), atZero);
        const CliResult negative = runCli({"generate", id, "--temperature", "-0.5"}, home.path());
        QCOMPARE(negative.code, 1);
        QVERIFY2(negative.err.contains("--temperature") && negative.err.contains("greedy"),
                 qPrintable(negative.err));

        const CliResult unknown = runCli({"generate", id, "--prompt", "To Be"}, home.path());
        QCOMPARE(unknown.code, 1);
        QVERIFY2(unknown.err.contains("'T'") && unknown.err.contains("vocabulary"),
                 qPrintable(unknown.err));

        // The run exports as ONNX with its vocabulary (the text file may be gone by then), and
        // predict, which reads images, points to generate.
        QVERIFY(text.remove());
        const CliResult onnx =
            runCli({"export", id, "--out", home.filePath("gpt.onnx"), "--json"}, home.path());
        QVERIFY2(onnx.code == 0, qPrintable(onnx.err));
        QCOMPARE(lastJsonLine(onnx.out)["classes"].toInt(), 16); // the corpus's characters
        const CliResult predict = runCli({"predict", id, "x.png"}, home.path());
        QCOMPARE(predict.code, 1);
        QVERIFY2(predict.err.contains("language model") && predict.err.contains("generate"),
                 qPrintable(predict.err));
        const QString classifier = trainSmallRun(home);
        const CliResult notText = runCli({"generate", classifier}, home.path());
        QCOMPARE(notText.code, 1);
        QVERIFY2(notText.err.contains("not a language model"), qPrintable(notText.err));
    }

    // `runs watch` follows a run another process writes and returns when it ends. The run is
    // long and stopped once the watcher has shown two epochs, whatever the machine's speed.
    void watchFollowsARunWhileItTrains() {
        QTemporaryDir home;
        QProcess trainer;
        prepareCli(trainer, home.path());
        trainer.start(test::cliPath(),
                      QStringList{"train", "--quiet", "--set", "dataset=shapes", "--set",
                                  "model=fmnist-cnn", "--set", "data.image_size=16", "--set",
                                  "max_epochs=10000", "--set", "log_every_n_steps=1", "--set",
                                  "device=cpu"});
        QVERIFY(trainer.waitForStarted());
        QString id;
        QTRY_VERIFY_WITH_TIMEOUT(!(id = lastRunningId(home)).isEmpty() ||
                                     trainer.state() == QProcess::NotRunning,
                                 60000);
        QVERIFY2(!id.isEmpty(), qPrintable(trainer.readAllStandardError()));
        QProcess watcher;
        prepareCli(watcher, home.path());
        watcher.start(test::cliPath(), {"runs", "watch", id});
        QVERIFY(watcher.waitForStarted());
        QString shown;
        QTRY_VERIFY_WITH_TIMEOUT((shown += watcher.readAllStandardOutput()).contains("epoch 2 "),
                                 120000);
        trainer.terminate(); // SIGTERM: stops after the current step, with a checkpoint
        QVERIFY(trainer.waitForFinished(60000));
        QVERIFY(watcher.waitForFinished(60000));
        shown += watcher.readAllStandardOutput();
        QCOMPARE(watcher.exitCode(), 0);
        QVERIFY(shown.contains("step 1 "));
        QVERIFY2(shown.trimmed().endsWith("stopped"), qPrintable(shown.right(200)));
    }

    // `runs export ID --out <the store>` used to truncate it: every run was gone.
    void exportOverTheStoreIsRefused() {
        QTemporaryDir home;
        const QString id = trainSmallRun(home);
        const CliResult r = runCli({"runs", "export", id, "--out", databaseOf(home)}, home.path());
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("Choose another file"), qPrintable(r.err));
        const CliResult list = runCli({"runs", "list", "--json"}, home.path());
        QCOMPARE(QJsonDocument::fromJson(list.out.toUtf8()).array().size(), 1);
        QCOMPARE(runCli({"runs", "check"}, home.path()).code, 0);
    }

    // --out naming a device (or a FIFO) writes into it and reports its errors; a temporary
    // file renamed over it would have replaced /dev/full with a regular file.
    void exportToAFullDeviceFails() {
        QTemporaryDir home;
        const QString id = trainSmallRun(home);
        const CliResult r =
            runCli({"runs", "export", id, "--format", "json", "--out", "/dev/full"}, home.path());
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("/dev/full") && r.err.contains("failed"), qPrintable(r.err));
        struct stat st {};
        QCOMPARE(::stat("/dev/full", &st), 0);
        QVERIFY(S_ISCHR(st.st_mode));
        QVERIFY(QDir("/dev").entryList({"full.tmp-*"}, QDir::System | QDir::Files).isEmpty());
    }

    // A full disk behind stdout: the export used to exit 0 with nothing written.
    void exportToAFullStdoutFails() {
        QTemporaryDir home;
        const QString id = trainSmallRun(home);
        QProcess p;
        prepareCli(p, home.path());
        p.setStandardOutputFile("/dev/full");
        p.start(test::cliPath(), {"runs", "export", id, "--format", "json"});
        const CliResult r = finishCli(p, 60000);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("writing the output failed"), qPrintable(r.err));
    }

    // A run store on a disk that fills up mid-run (a small tmpfs, mounted in a user namespace):
    // the run used to read as interrupted at the last step that fitted. Now it reads as
    // completed with all its steps counted, the error says what was lost, and train exits 1.
    void fullDiskStillRecordsHowTheRunEnded() {
        QTemporaryDir home;
        QVERIFY(QDir(home.path()).mkdir("disk"));
        const QString disk = home.filePath("disk");
        if (QProcess::execute("unshare", {"-Urm", "true"}) != 0)
            QSKIP("unshare -Urm is not available here: cannot mount a small disk");
        const QString db = disk + "/runs.db";
        const QString script =
            QString("mount -t tmpfs -o size=200k none '%1' && \"$0\" \"$@\"; code=$?; "
                    "\"$0\" runs list --json --db '%2' && exit $code")
                .arg(disk, db);
        QProcess p;
        prepareCli(p, home.path());
        // --db-wait 2: the recorder's patience with the full disk (60 s by default), waited out.
        const QStringList train{"train",     "--quiet",
                                "--db",      db,
                                "--db-wait", "2",
                                "--set",     "dataset=blobs",
                                "--set",     "model=mlp",
                                "--set",     "max_epochs=30",
                                "--set",     "log_every_n_steps=1",
                                "--set",     "device=cpu"};
        p.start("unshare", QStringList{"-Urm", "sh", "-c", script, test::cliPath()} + train);
        const CliResult r = finishCli(p, 240000);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("could not be recorded"), qPrintable(r.err));
        const QJsonArray runs = QJsonDocument::fromJson(r.out.toUtf8()).array();
        QVERIFY2(runs.size() == 1, qPrintable(r.out.left(300) + "\n" + r.err));
        const QJsonObject run = runs.first().toObject();
        QCOMPARE(run["status"].toString(), QString("completed"));
        QCOMPARE(run["epochs"].toInt(), 30);
        QVERIFY2(run["error"].toString().contains("disk is full"),
                 qPrintable(run["error"].toString()));
    }

    // A store on a read-only mount (a backup disk, a shared folder): SQLite cannot create its
    // -shm file there, and `runs list` used to fail to open it. The mount is made in a user
    // namespace, where tests may mount without privileges.
    void listsAStoreOnAReadOnlyMount() {
        QTemporaryDir home;
        const QString id = trainSmallRun(home);
        const QString folder = home.filePath("TrainBench");
        if (QProcess::execute("unshare", {"-Urm", "true"}) != 0)
            QSKIP("unshare -Urm is not available here: cannot make a read-only mount");
        const QString script = QString("mount --bind '%1' '%1' && mount -o remount,bind,ro '%1' "
                                       "&& ! touch '%1/probe' 2>/dev/null && exec \"$0\" \"$@\"")
                                   .arg(folder);
        QProcess p;
        prepareCli(p, home.path());
        p.start("unshare", {"-Urm", "sh", "-c", script, test::cliPath(), "runs", "list", "--json"});
        const CliResult r = finishCli(p, 60000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(id), qPrintable(r.out));
    }
};

QTEST_GUILESS_MAIN(TestCliStore)
#include "tst_cli_store.moc"

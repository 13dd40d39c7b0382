// trainbench-cli as a user runs it: exit codes, error messages naming the key, and the JSON
// last lines that scripts read.
#include "data/imagecodec.h"
#include "support/buildtree.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <csignal>

namespace {

struct Result {
    int code;
    QString out, err;
};

Result runCli(const QStringList& args, const QString& home,
              const QList<QPair<QString, QString>>& extraEnv = {}, int timeoutMs = 300000) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_DATA_HOME", home); // keep the user's run store and checkpoints untouched
    env.insert("XDG_CACHE_HOME", home + "/cache");
    for (const auto& [key, value] : extraEnv)
        env.insert(key, value);
    p.setProcessEnvironment(env);
    p.start(tb::test::cliPath(), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {-1, QString(), QString("timed out after %1 ms").arg(timeoutMs)};
    }
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

void writeText(const QString& path, const QByteArray& text) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

// JSON nested `levels` deep: {"a":{"a":...1...}}.
QByteArray deepJson(int levels) {
    return QByteArray("{\"a\":").repeated(levels) + "1" + QByteArray("}").repeated(levels);
}

// A .safetensors file holding only a header: 8-byte little-endian length, then the JSON.
QByteArray safetensors(const QByteArray& header) {
    QByteArray out(8, '\0');
    for (int i = 0; i < 8; ++i)
        out[i] = static_cast<char>((static_cast<quint64>(header.size()) >> (8 * i)) & 0xff);
    return out + header;
}

const QStringList kCommands{"train",        "models",         "summary",    "bench", "datasets",
                            "dataset-info", "dataset-export", "bench-data", "runs",  "doctor"};

QJsonObject lastJsonLine(const QString& out) {
    const QStringList lines = out.trimmed().split('\n');
    return QJsonDocument::fromJson(lines.last().toUtf8()).object();
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void invalidConfigNamesTheKey_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("key");
        QTest::newRow("batch_size=0") << QStringList{"--set", "batch_size=0"} << "batch_size";
        QTest::newRow("lr=-1") << QStringList{"--set", "lr=-1"} << "lr";
        QTest::newRow("unknown key")
            << QStringList{"--set", "learning_rate=0.1"} << "learning_rate";
        QTest::newRow("unknown model") << QStringList{"--set", "model=resnet9000"} << "model";
        QTest::newRow("bad --set") << QStringList{"--set", "lr"} << "--set";
    }
    void invalidConfigNamesTheKey() {
        QFETCH(QStringList, args);
        QFETCH(QString, key);
        QTemporaryDir home;
        const Result r = runCli(QStringList{"train", "--no-db"} + args, home.path());
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains(key + ":"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("internal error"), qPrintable(r.err));
    }

    void trainPrintsJsonSummary() {
        QTemporaryDir home;
        const Result r =
            runCli({"train", "--json", "--set", "dataset=blobs", "--set", "model=mlp", "--set",
                    "max_epochs=2", "--set", "batch_size=50", "--set", "device=cpu"},
                   home.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject j = lastJsonLine(r.out);
        for (const char* key :
             {"run_id", "status", "epochs", "train_loss", "test_loss", "test_acc", "samples_per_s"})
            QVERIFY2(j.contains(key), key);
        QCOMPARE(j["status"].toString(), QString("completed"));
        QCOMPARE(j["epochs"].toInt(), 2);
        QVERIFY(j["test_acc"].toDouble() > 0.5);
        // The run was recorded in the run store under XDG_DATA_HOME.
        QVERIFY(QFile::exists(home.path() + "/TrainBench/runs.db"));
        const Result list = runCli({"runs", "list", "--json"}, home.path());
        QVERIFY2(list.out.contains(j["run_id"].toString()), qPrintable(list.out + list.err));
        // How many processes trained it and the samples per optimizer step, in every listing.
        const QJsonObject listed = QJsonDocument::fromJson(list.out.toUtf8()).array()[0].toObject();
        QCOMPARE(listed["ranks"].toInt(), 1);
        QCOMPARE(listed["effective_batch"].toInt(), 50);
        const Result table = runCli({"runs", "list"}, home.path());
        QVERIFY2(table.out.contains("RANKS") && table.out.contains("EFF BATCH"),
                 qPrintable(table.out));
        const Result shown = runCli({"runs", "show", j["run_id"].toString()}, home.path());
        QVERIFY2(shown.out.contains("effective batch") &&
                     shown.out.contains("50 samples per optimizer step"),
                 qPrintable(shown.out));
    }

    // SIGKILL in the middle of training: the next open marks the run interrupted, the database
    // is intact and the steps committed before the kill are there.
    void killedTrainingIsMarkedInterrupted() {
        QTemporaryDir home;
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_DATA_HOME", home.path());
        p.setProcessEnvironment(env);
        p.start(tb::test::cliPath(),
                {"train", "--set", "dataset=blobs", "--set", "model=mlp", "--set",
                 "max_epochs=100000", "--set", "log_every_n_steps=1", "--set", "device=cpu"});
        QVERIFY(p.waitForStarted());
        QByteArray out; // accumulated: QTRY re-evaluates its expression
        QTRY_VERIFY_WITH_TIMEOUT((out += p.readAllStandardOutput()).contains("step"), 60000);
        // Killed once the store holds some steps (read as another program would).
        const auto committedSteps = [&] {
            const Result r = runCli({"runs", "list", "--json"}, home.path());
            const QJsonArray runs = QJsonDocument::fromJson(r.out.toUtf8()).array();
            return runs.isEmpty() ? 0 : runs.first().toObject()["steps"].toInt();
        };
        QTRY_VERIFY_WITH_TIMEOUT(committedSteps() > 0, 60000);
        p.kill();
        QVERIFY(p.waitForFinished());
        const Result list = runCli({"runs", "list", "--json"}, home.path());
        QVERIFY2(list.out.contains("interrupted"), qPrintable(list.out + list.err));
        const Result check = runCli({"runs", "check"}, home.path());
        QVERIFY2(check.code == 0, qPrintable(check.out + check.err));
        const QJsonArray runs = QJsonDocument::fromJson(list.out.toUtf8()).array();
        QVERIFY(!runs.isEmpty());
        const QString id = runs.first().toObject()["id"].toString();
        const Result exported = runCli({"runs", "export", id, "--format", "csv"}, home.path());
        QVERIFY2(exported.out.count('\n') > 5, qPrintable(exported.out + exported.err));
    }

    // The README's promise: two epochs of the default run reach 90% test accuracy.
    void defaultRunReachesNinetyPercent() {
        if (!QFile::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"))
            QSKIP("Fashion-MNIST is not installed (Debian package dataset-fashion-mnist)");
        QTemporaryDir home;
        const Result r = runCli({"train", "--json"}, home.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject j = lastJsonLine(r.out);
        qInfo("default run: test accuracy %.4f after %d epochs, %.0f samples/s",
              j["test_acc"].toDouble(), j["epochs"].toInt(), j["samples_per_s"].toDouble());
        QCOMPARE(j["epochs"].toInt(), 2);
        QVERIFY(j["test_acc"].toDouble() >= 0.90);
        QVERIFY(j["peak_memory_mb"].toDouble() <= 250.0);
    }

    // Ctrl-C (SIGINT) stops after the step, checkpoints, and --resume RUN_ID continues the same
    // run record to completion.
    void interruptThenResume() {
        QTemporaryDir home;
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_DATA_HOME", home.path());
        p.setProcessEnvironment(env);
        p.start(tb::test::cliPath(),
                {"train", "--json", "--set", "dataset=blobs", "--set", "model=mlp", "--set",
                 "max_epochs=100000", "--set", "device=cpu"});
        QVERIFY(p.waitForStarted());
        QByteArray err;
        QTRY_VERIFY_WITH_TIMEOUT((err += p.readAllStandardError()).contains("step"), 60000);
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 130); // 128 + SIGINT: the run did not finish
        const QJsonObject stopped = lastJsonLine(QString::fromUtf8(p.readAllStandardOutput()));
        QCOMPARE(stopped["status"].toString(), QString("stopped"));
        const QString id = stopped["run_id"].toString();
        const int target = stopped["epochs"].toInt() + 2; // a short remainder for the test
        const Result resumed = runCli(
            {"train", "--json", "--resume", id, "--set", "max_epochs=" + QString::number(target)},
            home.path());
        QVERIFY2(resumed.code == 0, qPrintable(resumed.err));
        const QJsonObject done = lastJsonLine(resumed.out);
        QCOMPARE(done["run_id"].toString(), id);
        QCOMPARE(done["status"].toString(), QString("completed"));
        QCOMPARE(done["epochs"].toInt(), target);
        const Result list = runCli({"runs", "list", "--json"}, home.path());
        QCOMPARE(QJsonDocument::fromJson(list.out.toUtf8()).array().size(), 1);
    }

    // SIGTERM (a service manager, `kill`, a closing session) stops like Ctrl-C: after the step,
    // with a checkpoint and the run recorded as stopped, and exits 143 (128 + SIGTERM).
    void sigtermStopsLikeCtrlC() {
        QTemporaryDir home;
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_DATA_HOME", home.path());
        p.setProcessEnvironment(env);
        // An epoch far longer than the test: the stop comes before any validation.
        p.start(tb::test::cliPath(),
                {"train", "--json", "--set", "dataset=shapes", "--set",
                 "data.synthetic_samples=200000", "--set", "data.image_size=16", "--set",
                 "model=mlp", "--set", "log_every_n_steps=1", "--set", "device=cpu"});
        QVERIFY(p.waitForStarted());
        QByteArray err;
        QTRY_VERIFY_WITH_TIMEOUT((err += p.readAllStandardError()).contains("step"), 60000);
        ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 143);
        const QJsonObject stopped = lastJsonLine(QString::fromUtf8(p.readAllStandardOutput()));
        QCOMPARE(stopped["status"].toString(), QString("stopped"));
        QVERIFY(QFile::exists(stopped["checkpoint"].toString()));
        // Nothing was validated: no accuracy is reported, rather than a measured-looking 0%.
        QVERIFY(stopped["per_epoch"].toArray().isEmpty());
        QVERIFY(stopped["test_acc"].isNull());
        QVERIFY(stopped["best_val_acc"].isNull());
        QVERIFY(stopped["train_loss"].isDouble());
        const Result list = runCli({"runs", "list", "--json"}, home.path());
        const QJsonArray runs = QJsonDocument::fromJson(list.out.toUtf8()).array();
        QCOMPARE(runs.size(), 1);
        QCOMPARE(runs.first().toObject()["status"].toString(), QString("stopped"));
    }

    // A FIFO named as a data file fails at once with the file named, instead of blocking in
    // open() until a writer comes (and ignoring Ctrl-C and SIGTERM meanwhile). A model spec or
    // config file may be a pipe (read bounded), but one that nothing writes to fails at once.
    void fifoFailsAtOnce_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("sets");
        QTest::addColumn<QString>("message");
        QTest::newRow("data.root")
            << "table.csv" << QStringList{"dataset=csv", "data.root=%1", "model=mlp"}
            << ": is a FIFO (named pipe), expected a regular file";
        QTest::newRow("model spec") << "net.json" << QStringList{"dataset=blobs", "model=%1"}
                                    << ": is a pipe that nothing was written to";
        QTest::newRow("--config") << "run.json" << QStringList{}
                                  << ": is a pipe that nothing was written to";
    }
    void fifoFailsAtOnce() {
        QFETCH(QString, name);
        QFETCH(QStringList, sets);
        QFETCH(QString, message);
        QTemporaryDir home;
        const QString fifo = home.filePath(name);
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        QStringList args{"train", "--no-db", "--set", "device=cpu"};
        for (const QString& s : sets)
            args << "--set" << (s.contains("%1") ? s.arg(fifo) : s);
        if (sets.isEmpty())
            args << "--config" << fifo;
        const Result r = runCli(args, home.path(), {}, 30000);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(fifo + message), qPrintable(r.err));
        QVERIFY2(!r.err.contains("internal error"), qPrintable(r.err));
    }

    // Shells hand generated files over as pipes: `--config <(generate)`, a spec the same way.
    void configAndSpecFromPipes() {
        QTemporaryDir home;
        const QString spec = R"({"name": "piped", "input": [2], "classes": 3, "layers": )"
                             R"([{"type": "linear", "name": "fc", "out_features": 3}]})";
        const QString config = R"({"dataset": "blobs", "max_epochs": 0, "max_steps": 3,)"
                               R"( "device": "cpu", "threads": 1})";
        const QString line = QStringLiteral("exec \"$0\" train --no-db --json --config <(printf "
                                            "'%s' \"$1\") --set model=<(printf '%s' \"$2\")");
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_DATA_HOME", home.path());
        env.insert("XDG_CACHE_HOME", home.path() + "/cache");
        p.setProcessEnvironment(env);
        p.start("bash", {"-c", line, tb::test::cliPath(), config, spec});
        QVERIFY(p.waitForFinished(120000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitCode() == 0, qPrintable(err));
        const QJsonObject j = lastJsonLine(QString::fromUtf8(p.readAllStandardOutput()));
        QCOMPARE(j["status"].toString(), QString("completed"));
        QCOMPARE(j["steps"].toInt(), 3);
        // max_steps ended the run inside its first epoch: validated once, there.
        const QJsonArray epochs = j["per_epoch"].toArray();
        QCOMPARE(epochs.size(), 1);
        QVERIFY(epochs[0].toObject()["partial"].toBool());
        QCOMPARE(epochs[0].toObject()["step"].toInt(), 3);
        QVERIFY(j["best_val_acc"].isDouble());
        QCOMPARE(j["test_acc"].toDouble(), epochs[0].toObject()["val_acc"].toDouble());
        QCOMPARE(j["ranks"].toInt(), 1);
        QCOMPARE(j["effective_batch"].toInt(), 64); // 1 rank x batch_size 64 x 1 micro-batch
    }

    // A number beyond double's range: the message names the file, the offset and the key.
    void hugeNumberInAConfigNamesItsKey() {
        QTemporaryDir home;
        const QString path = home.filePath("run.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"batch_size": 32, "lr": 1e999})");
        f.close();
        const Result r = runCli({"train", "--no-db", "--config", path}, home.path());
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(path) && r.err.contains("\"lr\"") && r.err.contains("1e999") &&
                     r.err.contains("offset 25"),
                 qPrintable(r.err));
    }

    void benchPrintsJson() {
        QTemporaryDir home;
        const Result r = runCli({"bench", "--model", "mlp", "--batch", "32", "--steps", "5",
                                 "--threads", "1", "--json"},
                                home.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject j = lastJsonLine(r.out);
        for (const char* key : {"median_step_ms", "samples_per_s", "peak_rss_mb"})
            QVERIFY2(j[key].toDouble() > 0.0, key);
    }

    // A model too large for the machine fails before anything is allocated, with its estimate.
    void benchOfAModelTooLargeFailsAtOnce() {
        QTemporaryDir home;
        const Result r = runCli({"bench", "--model", "mlp", "--hidden", "16000000,4000", "--batch",
                                 "8", "--steps", "3"},
                                home.path(), {}, 60000);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("out of memory on cpu: this run needs about 857.5 GiB at "
                                "batch_size 8 (weights 285.2 GiB"),
                 qPrintable(r.err));
    }

    // oneDNN's convolutions meet at barriers sized by the team they asked for: asking for more
    // threads than OMP_THREAD_LIMIT grants used to hang in backward-weights. The pool is
    // clamped to the limit instead.
    void threadLimitBelowThreadsStillTrains() {
        QTemporaryDir home;
        const Result r = runCli({"bench", "--model", "fmnist-cnn", "--batch", "16", "--steps", "3",
                                 "--warmup", "1", "--threads", "2", "--json"},
                                home.path(), {{"OMP_THREAD_LIMIT", "1"}}, 60000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString backend = lastJsonLine(r.out)["backend"].toString();
        QVERIFY2(backend.contains(", 1 threads"), qPrintable(backend));
    }

    void modelsAndSummary() {
        QTemporaryDir home;
        const Result models = runCli({"models"}, home.path());
        QCOMPARE(models.code, 0);
        for (const char* m :
             {"mlp", "lenet5", "fmnist-cnn", "resnet20", "resnet32", "resnet56", "vgg-small"})
            QVERIFY2(models.out.contains(m), m);
        const Result summary =
            runCli({"summary", "--model", "lenet5", "--input", "1x28x28"}, home.path());
        QCOMPARE(summary.code, 0);
        QVERIFY(summary.out.contains("61.7K parameters"));
        QVERIFY(summary.out.contains("training memory at batch 1"));
        const Result json = runCli({"summary", "--model", "resnet20", "--batch", "128",
                                    "--precision", "16-mixed", "--optimizer", "adamw", "--json"},
                                   home.path());
        QCOMPARE(json.code, 0);
        const QJsonObject mem =
            QJsonDocument::fromJson(json.out.toUtf8()).object()["training_memory"].toObject();
        const double params = 269722.0 * 4;
        QCOMPARE(mem["gradients"].toDouble(), params);
        QCOMPARE(mem["optimizer_state"].toDouble(), 2 * params); // AdamW's two moments
        QVERIFY(mem["activations"].toDouble() > 100.0 * 1024 * 1024);
        QCOMPARE(mem["total"].toDouble(), mem["weights"].toDouble() + mem["gradients"].toDouble() +
                                              mem["optimizer_state"].toDouble() +
                                              mem["activations"].toDouble() +
                                              mem["activation_gradients"].toDouble());
        const Result bad = runCli({"summary", "--precision", "8"}, home.path());
        QCOMPARE(bad.code, 1);
        QVERIFY2(bad.err.contains("--precision"), qPrintable(bad.err));
    }

    // summary --params / --preset: what a language model needs in GPU memory, far beyond this
    // machine: a 7B model in bf16 for inference fits a 24 GB card; trained with AdamW, even
    // checkpointed, only a 141 GB one.
    void summaryOfALanguageModel() {
        QTemporaryDir home;
        const Result run = runCli({"summary", "--params", "7B"}, home.path());
        QVERIFY2(run.code == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains("inference at bf16-true"), qPrintable(run.out));
        QVERIFY(run.out.contains("fits on one: RTX 3090 / 4090"));
        const Result train = runCli({"summary", "--preset", "llama-7b", "--training", "--batch",
                                     "2", "--accumulate", "8", "--checkpointing", "--json"},
                                    home.path());
        QVERIFY2(train.code == 0, qPrintable(train.err));
        const QJsonObject j = QJsonDocument::fromJson(train.out.toUtf8()).object();
        QCOMPARE(j["use"].toString(), QString("training"));
        QCOMPARE(j["effective_batch"].toInt(), 16);
        const QJsonObject bytes = j["bytes"].toObject();
        QCOMPARE(bytes["optimizer_state"].toDouble(), 2 * bytes["weights"].toDouble());
        // 16 bytes a parameter and checkpointed activations: only the 141 GB H200 holds it.
        QStringList fits;
        for (const QJsonValue& gpu : j["fits"].toArray())
            if (gpu.toObject()["fits"].toBool())
                fits << gpu.toObject()["gpu"].toString();
        QCOMPARE(fits, QStringList{"H200"});
        // Fused attention is the default; eager stores the scores, growing with s^2.
        QCOMPARE(j["attention"].toString(), QString("flash"));
        const Result eager =
            runCli({"summary", "--preset", "gpt2", "--training", "--attention", "eager", "--json"},
                   home.path());
        const Result fused =
            runCli({"summary", "--preset", "gpt2", "--training", "--json"}, home.path());
        const auto activations = [](const Result& r) {
            return QJsonDocument::fromJson(r.out.toUtf8())
                .object()["bytes"]
                .toObject()["activations"]
                .toDouble();
        };
        QVERIFY2(activations(eager) > 2 * activations(fused), qPrintable(eager.err));
        const Result unknown =
            runCli({"summary", "--preset", "gpt2", "--attention", "sdpa"}, home.path());
        QCOMPARE(unknown.code, 1);
        QVERIFY2(unknown.err.contains("'sdpa' is not flash"), qPrintable(unknown.err));
        const Result bad = runCli({"summary", "--params", "lots"}, home.path());
        QCOMPARE(bad.code, 1);
        QVERIFY2(bad.err.contains("--params"), qPrintable(bad.err));
        const Result quantisedTraining = runCli(
            {"summary", "--preset", "gpt2", "--training", "--precision", "int4"}, home.path());
        QCOMPARE(quantisedTraining.code, 1);
        QVERIFY2(quantisedTraining.err.contains("precision"), qPrintable(quantisedTraining.err));
    }

    // 100k levels of nesting overflowed the stack (rc 139) in every JSON the CLI reads.
    void deeplyNestedJsonIsRefused_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("content");
        const QByteArray deep = deepJson(100000);
        QTest::newRow("config") << QStringList{"train", "--no-db", "--config", "FILE"} << "run.json"
                                << deep;
        QTest::newRow("model spec")
            << QStringList{"summary", "--model", "FILE"} << "spec.json" << deep;
        QTest::newRow("checkpoint header")
            << QStringList{"train", "--no-db", "--resume", "FILE"} << "ck.safetensors"
            << safetensors(QByteArray("[").repeated(100000));
        const QByteArray config = QJsonDocument(QJsonObject{{"config", QString(deep)}}).toJson();
        QTest::newRow("checkpoint metadata")
            << QStringList{"train", "--no-db", "--resume", "FILE"} << "meta.safetensors"
            << safetensors("{\"__metadata__\":" + config + "}");
    }
    void deeplyNestedJsonIsRefused() {
        QFETCH(QStringList, args);
        QFETCH(QString, file);
        QFETCH(QByteArray, content);
        QTemporaryDir home;
        const QString path = home.path() + "/" + file;
        writeText(path, content);
        args.replaceInStrings("FILE", path);
        const Result r = runCli(args, home.path());
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(path) && r.err.contains("nested more than"), qPrintable(r.err));
    }

    // A corrupt statistics cache is only a cache: the statistics are computed again.
    void deeplyNestedStatsCacheIsIgnored() {
        QTemporaryDir home;
        QDir().mkpath(home.path() + "/cache/TrainBench");
        writeText(home.path() + "/cache/TrainBench/dataset-stats.json", deepJson(100000));
        writeText(home.path() + "/d.csv", "x,y,label\n1,2,a\n3,4,b\n5,6,a\n7,8,b\n");
        const Result r = runCli({"dataset-info", "--dataset", "csv", "--set",
                                 "data.root=" + home.path() + "/d.csv", "--json"},
                                home.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
    }

    // A built-in set written out as an ImageFolder of JPEGs: a folder per class, the files
    // decode at the size asked, and the folder trains; a second export into it is refused (it
    // would overwrite), as is a format there is no writer for.
    void datasetExportWritesAFolderThatTrains() {
        QTemporaryDir home;
        const QString out = home.path() + "/shapes-jpeg";
        const Result r =
            runCli({"dataset-export", "shapes", out, "--size", "40", "--limit", "30", "--json"},
                   home.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject summary = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(summary["images"].toInt(), 30);
        QCOMPARE(summary["size"].toInt(), 40);
        const QStringList classes = QDir(out).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QCOMPARE(classes.size(), summary["classes"].toInt());
        int files = 0;
        for (const QString& c : classes)
            for (const QString& f : QDir(out + "/" + c).entryList({"*.jpg"}, QDir::Files)) {
                const std::string path = (out + "/" + c + "/" + f).toStdString();
                const tb::RgbImage img = tb::decodeImage(tb::readWholeFile(path), path);
                QCOMPARE(img.width, 40);
                QCOMPARE(img.height, 40);
                ++files;
            }
        QCOMPARE(files, 30);
        const Result trained =
            runCli({"train", "--no-db", "--json", "--set", "dataset=imagefolder", "--set",
                    "data.root=" + out, "--set", "data.image_size=40", "--set", "model=mlp",
                    "--set", "max_epochs=1", "--set", "batch_size=8"},
                   home.path());
        QVERIFY2(trained.code == 0, qPrintable(trained.err));
        QCOMPARE(lastJsonLine(trained.out)["status"].toString(), QString("completed"));

        const Result again = runCli({"dataset-export", "shapes", out, "--limit", "3"}, home.path());
        QCOMPARE(again.code, 1);
        QVERIFY2(again.err.contains("is not empty"), qPrintable(again.err));
        const Result gif = runCli(
            {"dataset-export", "shapes", home.path() + "/gif", "--format", "gif"}, home.path());
        QCOMPARE(gif.code, 1);
        QVERIFY2(gif.err.contains("--format: 'gif' must be jpeg or png"), qPrintable(gif.err));
    }

    // Each used to end in "internal error" or a bare nlohmann message, or trained to NaN.
    void badInputNamesTheKeyOrFile_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QString>("expected");
        QTest::newRow("--config DIR") << QStringList{"train", "--no-db", "--config", "HOME"}
                                      << QByteArray() << "is a folder, not a JSON file";
        QTest::newRow("lr 1e999") << QStringList{"train", "--no-db", "--config", "FILE"}
                                  << QByteArray(R"({"lr": 1e999})")
                                  << R"(offset 7: the value of "lr", 1e999, is beyond the range)";
        QTest::newRow("tags [a, 1]") << QStringList{"train", "--no-db", "--config", "FILE"}
                                     << QByteArray(R"({"tags": ["a", 1]})") << "tags:";
        QTest::newRow("lr=nan") << QStringList{"train", "--no-db", "--set", "lr=nan"}
                                << QByteArray() << "lr must be a finite number";
        QTest::newRow("threads=1024") << QStringList{"train", "--no-db", "--set", "threads=1024"}
                                      << QByteArray() << "threads: 1024 is out of range";
        QTest::newRow("bench --threads 1024")
            << QStringList{"bench", "--threads", "1024"} << QByteArray()
            << "--threads: '1024' is not a whole number from 0 to";
        QTest::newRow("seed > uint64")
            << QStringList{"train", "--no-db", "--set", "seed=18446744073709551616"} << QByteArray()
            << "'18446744073709551616'";
        const QByteArray spec = R"({"input": [1, 28, 28], "classes": 10, "layers": [
            {"type": "conv2d", "name": "c1", "out_channels": 4}, LAYER,
            {"type": "flatten"}, {"type": "linear", "name": "fc", "out_features": 10}]})";
        QTest::newRow("spec: string for a number")
            << QStringList{"summary", "--model", "FILE"}
            << QByteArray(spec).replace("LAYER", R"({"type": "conv2d", "name": "c2",
                                                     "out_channels": "8"})")
            << "layer 'c2': option 'out_channels' must be a whole number";
        QTest::newRow("spec: batch-norm eps -1")
            << QStringList{"summary", "--model", "FILE"}
            << QByteArray(spec).replace("LAYER", R"({"type": "batchnorm2d", "name": "bn",
                                                     "eps": -1})")
            << "layer 'bn': option 'eps' must be a number in (0, 1], got -1";
        QTest::newRow("spec: number as a name")
            << QStringList{"summary", "--model", "FILE"}
            << QByteArray(spec).replace("LAYER", R"({"type": "relu", "name": 7})")
            << "\"name\" must be a string";
    }
    void badInputNamesTheKeyOrFile() {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, file);
        QFETCH(QString, expected);
        QTemporaryDir home;
        const QString path = home.path() + "/input.json";
        writeText(path, file);
        args.replaceInStrings("FILE", path).replaceInStrings("HOME", home.path());
        const Result r = runCli(args, home.path());
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        QVERIFY2(!r.err.contains("internal error") && !r.err.contains("json.exception"),
                 qPrintable(r.err));
    }

    // These were ignored and the run went to the default store (or, for --db '', nowhere).
    void unknownArgumentsAreErrors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("named");
        QTest::newRow("--sett") << QStringList{"train", "--sett", "lr=5"} << "--sett";
        QTest::newRow("stray word") << QStringList{"train", "lr=5"} << "'lr=5'";
        QTest::newRow("--dbb") << QStringList{"train", "--dbb", "X"} << "--dbb";
        QTest::newRow("--db ''") << QStringList{"train", "--db", ""} << "--db";
        QTest::newRow("--db=") << QStringList{"train", "--db="} << "--db";
        QTest::newRow("flag with a value") << QStringList{"train", "--json=yes"} << "--json";
        QTest::newRow("models --jsn") << QStringList{"models", "--jsn"} << "--jsn";
        QTest::newRow("bench stray word") << QStringList{"bench", "mlp"} << "'mlp'";
        QTest::newRow("runs --db ''") << QStringList{"runs", "list", "--db", ""} << "--db";
        QTest::newRow("dataset-info not data key")
            << QStringList{"dataset-info", "--dataset", "spirals", "--set", "lr=1"} << "lr";
    }
    void unknownArgumentsAreErrors() {
        QFETCH(QStringList, args);
        QFETCH(QString, named);
        QTemporaryDir home;
        const Result r = runCli(args, home.path(), {}, 60000);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(named + ":"), qPrintable(r.err));
        QVERIFY2(!QFile::exists(home.path() + "/TrainBench/runs.db"), "a run was recorded");
    }

    void everyCommandTakesHelp_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("option");
        for (const QString& c : kCommands)
            for (const char* option : {"--help", "-h"})
                QTest::newRow(qPrintable(c + " " + option)) << c << QString(option);
    }
    void everyCommandTakesHelp() {
        QFETCH(QString, command);
        QFETCH(QString, option);
        QTemporaryDir home;
        const Result r = runCli({command, option}, home.path(), {}, 60000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.startsWith("usage: trainbench-cli " + command), qPrintable(r.out));
    }

    void trainHelpPrintsTheSchema() {
        QTemporaryDir home;
        const Result r = runCli({"train", "--help"}, home.path());
        QCOMPARE(r.code, 0);
        for (const char* group : {"\ndata:", "\nmodel:", "\noptimization:", "\nperformance:",
                                  "\nprecision:", "\nlogging:"})
            QVERIFY2(r.out.contains(group), group);
        QVERIFY(r.out.contains(QRegularExpression(R"(batch_size +int 1\.\.65536 +64 )")));
        QVERIFY(r.out.contains(QRegularExpression(R"(momentum .*\[optimizer=sgd\])")));
    }

    // The whole uint64 range is a seed; it used to be stored and shown as -1.
    void largestSeedIsKept() {
        QTemporaryDir home;
        const Result r =
            runCli({"train", "--json", "--quiet", "--set", "dataset=blobs", "--set", "model=mlp",
                    "--set", "max_steps=1", "--set", "seed=18446744073709551615"},
                   home.path());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString id = lastJsonLine(r.out)["run_id"].toString();
        const Result shown = runCli({"runs", "show", id, "--json"}, home.path());
        QVERIFY2(shown.out.contains("18446744073709551615"), qPrintable(shown.out));
    }

    // `experiment NAME` runs a preset headless: each arm's repeats in the JSON, the conclusion
    // also as the last line of the plain output; a teacher's bad preset names file and key.
    void experimentRunsAPresetAndConcludes() {
        QTemporaryDir home;
        const QStringList tiny{"--no-db",
                               "--steps",
                               "4",
                               "--repeats",
                               "2",
                               "--set",
                               "dataset=shapes",
                               "--set",
                               "data.image_size=16",
                               "--set",
                               "data.synthetic_samples=200"};
        const Result json =
            runCli(QStringList{"experiment", "lr", "--json", "--quiet"} + tiny, home.path());
        QVERIFY2(json.code == 0, qPrintable(json.err));
        const QJsonObject r = QJsonDocument::fromJson(json.out.trimmed().toUtf8()).object();
        QCOMPARE(r["experiment"].toString(), QString("lr"));
        const QJsonArray arms = r["arms"].toArray();
        QCOMPARE(arms.size(), 3);
        for (const QJsonValue& arm : arms)
            QCOMPARE(arm.toObject()["repeats"].toArray().size(), 2);
        QVERIFY(r["conclusion"].toString().contains("lr=0.05"));
        const Result plain = runCli(QStringList{"experiment", "run", "lr"} + tiny, home.path());
        QCOMPARE(plain.code, 0);
        QVERIFY(plain.out.trimmed().split('\n').last().contains("lr=0.5"));

        const QString bad = home.filePath("mine.json");
        writeText(bad, R"({"title": "mine", "arms": [{"label": "a", "set": {"lr": 0.1}},
                                                   {"label": "b", "set": {"lr_typo": 1}}]})");
        const Result refused = runCli({"experiment", bad, "--no-db"}, home.path());
        QCOMPARE(refused.code, 1);
        QVERIFY2(refused.err.contains("mine.json: arms[1].set.lr_typo"), qPrintable(refused.err));
    }

    void unknownCommand() {
        QTemporaryDir home;
        const Result r = runCli({"frobnicate"}, home.path());
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("unknown command"));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"

// The window's process through a desktop's life: a session that ends it with SIGTERM, a closed
// terminal's SIGHUP, Ctrl+C's SIGINT, and a display that goes away stop the run in progress
// after its current step, with a checkpoint and the run recorded as stopped, then exit; a
// second signal exits at once. Drives the real `trainbench` binary (offscreen, and under an
// Xvfb the test starts and then kills) with --config and --train.
#include "store/runstore.h"
#include "support/buildtree.h"

#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace tb;

namespace {

// A run far longer than the test (one epoch of 200,000 small samples), logged every step.
QString writeLongRunConfig(const QTemporaryDir& dir) {
    const QString path = dir.filePath("long.json");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(QStringLiteral(R"({"dataset": "shapes", "data": {"synthetic_samples": 200000,
        "image_size": 16}, "model": "mlp", "batch_size": 32, "log_every_n_steps": 1,
        "num_workers": 0, "threads": 1, "device": "cpu", "checkpoint_dir": "%1"})")
                .arg(dir.filePath("checkpoints"))
                .toUtf8());
    return path;
}

// The one run in the store, read without disturbing the writer.
std::optional<RunRecord> theRun(const QString& db) {
    if (!QFile::exists(db))
        return std::nullopt;
    try {
        RunStoreOptions o;
        o.readOnly = true;
        o.markInterrupted = false;
        RunStore store(db.toStdString(), o);
        const std::vector<RunRecord> runs = store.listRuns();
        if (runs.size() == 1)
            return runs.front();
    } catch (const std::exception&) { // created but not yet initialised
    }
    return std::nullopt;
}

// The window, training the long run, with its own settings, data and store.
struct Window {
    QTemporaryDir home;
    QString db = home.filePath("runs.db");
    QProcess process;

    bool start(const QProcessEnvironment& display) {
        QProcessEnvironment env = display;
        env.insert("HOME", home.path());
        env.insert("XDG_CONFIG_HOME", home.filePath("config"));
        env.insert("XDG_DATA_HOME", home.filePath("data"));
        env.insert("XDG_CACHE_HOME", home.filePath("cache"));
        process.setProcessEnvironment(env);
        process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        process.start(test::guiPath(),
                      {"--db", db, "--config", writeLongRunConfig(home), "--train"});
        return process.waitForStarted();
    }
    bool training() {
        const auto r = theRun(db);
        return r && r->status == RunStatus::Running && r->steps >= 2;
    }
};

QProcessEnvironment offscreen() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    return env;
}

} // namespace

class TestWindowLifecycle : public QObject {
    Q_OBJECT
private slots:
    void aSignalStopsTheRunWithACheckpoint_data() {
        QTest::addColumn<int>("signal");
        QTest::newRow("SIGTERM (the session ends)") << int(SIGTERM);
        QTest::newRow("SIGHUP (the terminal closes)") << int(SIGHUP);
        QTest::newRow("SIGINT (Ctrl+C)") << int(SIGINT);
    }
    void aSignalStopsTheRunWithACheckpoint() {
        QFETCH(int, signal);
        Window w;
        QVERIFY(w.start(offscreen()));
        QTRY_VERIFY_WITH_TIMEOUT(w.training(), 60000);
        ::kill(static_cast<pid_t>(w.process.processId()), signal);
        QVERIFY(w.process.waitForFinished(20000)); // a step, a checkpoint, the record
        QCOMPARE(w.process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(w.process.exitCode(), 128 + signal);
        const auto run = theRun(w.db);
        QVERIFY(run);
        QCOMPARE(toString(run->status), std::string("stopped"));
        QVERIFY2(!run->checkpoint.empty() && QFile::exists(QString::fromStdString(run->checkpoint)),
                 run->checkpoint.c_str());
    }

    // A second signal does not wait for the step: the run stays `running` in the store (the
    // next open marks it interrupted), as a kill would leave it.
    void aSecondSignalQuitsAtOnce() {
        Window w;
        QVERIFY(w.start(offscreen()));
        QTRY_VERIFY_WITH_TIMEOUT(w.training(), 60000);
        const auto pid = static_cast<pid_t>(w.process.processId());
        ::kill(pid, SIGTERM);
        ::kill(pid, SIGTERM);
        QVERIFY(w.process.waitForFinished(20000));
        QCOMPARE(w.process.exitCode(), 128 + SIGTERM);
        const auto run = theRun(w.db);
        QVERIFY(run);
        // Either the first stop had already been recorded or nothing was: never a half state.
        QVERIFY(run->status == RunStatus::Running || run->status == RunStatus::Stopped);
    }

    // Under X: the display going away (the X server dies) ends the process as Quit would.
    void aLostDisplayStopsTheRunWithACheckpoint() {
        const QString xvfb = QStandardPaths::findExecutable("Xvfb");
        if (xvfb.isEmpty())
            QSKIP("Xvfb is not installed (Debian's xvfb)");
        QProcess server;
        server.start(xvfb, {"-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"});
        QVERIFY(server.waitForStarted());
        QByteArray number;
        QTRY_VERIFY_WITH_TIMEOUT((number += server.readAllStandardOutput()).contains('\n'), 20000);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "xcb");
        env.insert("DISPLAY", ":" + QString::fromUtf8(number).trimmed());
        Window w;
        QVERIFY(w.start(env));
        QTRY_VERIFY_WITH_TIMEOUT(w.training(), 60000);
        server.kill();
        QVERIFY(server.waitForFinished(10000));
        QVERIFY(w.process.waitForFinished(20000));
        const auto run = theRun(w.db);
        QVERIFY(run);
        QCOMPARE(toString(run->status), std::string("stopped"));
        QVERIFY(QFile::exists(QString::fromStdString(run->checkpoint)));
    }
};

QTEST_GUILESS_MAIN(TestWindowLifecycle)
#include "tst_windowlifecycle.moc"

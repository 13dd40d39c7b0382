// The window's process through a desktop's life: a session that ends it with SIGTERM, a closed
// terminal's SIGHUP, Ctrl+C's SIGINT, a display that goes away and a window another program
// destroys stop the run in progress after its current step, with a checkpoint and the run
// recorded as stopped, then exit; a second signal exits at once. Drives the real `trainbench`
// binary (offscreen, and under an Xvfb the test starts) with --config and --train.
#include "store/runstore.h"
#include "support/buildtree.h"

#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <xcb/xcb.h>

#include <csignal>
#include <cstdlib>

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

// Destroys the top-level window whose title contains `title` on `display`, as `xdotool
// windowclose` (XDestroyWindow) does; false when there is none.
bool destroyWindowTitled(const QString& display, const QByteArray& title) {
    xcb_connection_t* c = xcb_connect(display.toLatin1().constData(), nullptr);
    bool destroyed = false;
    if (!xcb_connection_has_error(c)) {
        const xcb_screen_t* screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
        xcb_query_tree_reply_t* tree =
            xcb_query_tree_reply(c, xcb_query_tree(c, screen->root), nullptr);
        const xcb_window_t* windows = tree ? xcb_query_tree_children(tree) : nullptr;
        for (int i = 0; tree && i < xcb_query_tree_children_length(tree) && !destroyed; ++i) {
            xcb_get_property_reply_t* name =
                xcb_get_property_reply(c,
                                       xcb_get_property(c, 0, windows[i], XCB_ATOM_WM_NAME,
                                                        XCB_GET_PROPERTY_TYPE_ANY, 0, 256),
                                       nullptr);
            if (name && QByteArray(static_cast<const char*>(xcb_get_property_value(name)),
                                   xcb_get_property_value_length(name))
                            .contains(title))
                destroyed = !xcb_request_check(c, xcb_destroy_window_checked(c, windows[i]));
            std::free(name);
        }
        std::free(tree);
    }
    xcb_disconnect(c);
    return destroyed;
}

// An Xvfb of its own for the test, and the environment that shows a window on it.
struct XServer {
    QProcess process;
    QString display;

    bool start() {
        const QString xvfb = QStandardPaths::findExecutable("Xvfb");
        process.start(xvfb, {"-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"});
        if (!process.waitForStarted())
            return false;
        QByteArray number;
        if (!QTest::qWaitFor(
                [&] { return (number += process.readAllStandardOutput()).contains('\n'); }, 20000))
            return false;
        display = ":" + QString::fromUtf8(number).trimmed();
        return true;
    }
    QProcessEnvironment environment() const {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "xcb");
        env.insert("DISPLAY", display);
        return env;
    }
    ~XServer() {
        process.kill();
        process.waitForFinished(10000);
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
        if (QStandardPaths::findExecutable("Xvfb").isEmpty())
            QSKIP("Xvfb is not installed (Debian's xvfb)");
        XServer server;
        QVERIFY(server.start());
        Window w;
        QVERIFY(w.start(server.environment()));
        QTRY_VERIFY_WITH_TIMEOUT(w.training(), 60000);
        server.process.kill();
        QVERIFY(server.process.waitForFinished(10000));
        QVERIFY(w.process.waitForFinished(20000));
        const auto run = theRun(w.db);
        QVERIFY(run);
        QCOMPARE(toString(run->status), std::string("stopped"));
        QVERIFY(QFile::exists(QString::fromStdString(run->checkpoint)));
    }

    // Under X: another program destroying the window (xdotool windowclose, a crashed window
    // manager) ends the process as a lost display does, instead of training on unseen.
    void aDestroyedWindowStopsTheRunWithACheckpoint() {
        if (QStandardPaths::findExecutable("Xvfb").isEmpty())
            QSKIP("Xvfb is not installed (Debian's xvfb)");
        XServer server;
        QVERIFY(server.start());
        Window w;
        QVERIFY(w.start(server.environment()));
        QTRY_VERIFY_WITH_TIMEOUT(w.training(), 60000);
        QVERIFY(destroyWindowTitled(server.display, "TrainBench"));
        QVERIFY(w.process.waitForFinished(30000));
        QCOMPARE(w.process.exitCode(), 1);
        const auto run = theRun(w.db);
        QVERIFY(run);
        QCOMPARE(toString(run->status), std::string("stopped"));
        QVERIFY(QFile::exists(QString::fromStdString(run->checkpoint)));
    }
};

QTEST_GUILESS_MAIN(TestWindowLifecycle)
#include "tst_windowlifecycle.moc"

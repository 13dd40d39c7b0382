// trainbench: the desktop window. Sets up the application and shows the main window; Unix
// signals, a lost display and a window destroyed from outside end it as Quit does.
#include "mainwindow.h"
#include "setup/setuppanel.h"
#include "unixsignalwatcher.h"
#include "windowlosswatcher.h"

#include "core/errors.h"
#include "io/jsontext.h"
#include "store/runstore.h"
#include "train/runconfig.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QPixmap>
#include <QTimer>

#include <cstdio>
#include <cstdlib>

namespace {

tb::ui::MainWindow* g_window = nullptr;

// Qt's X11 plugin ends the process with exit(1) when the connection to the display breaks (the
// X server or the session went away): what trains is stopped there as Quit would, after its
// current step with a checkpoint, before the process ends.
void finishRunsAtExit() {
    if (!g_window)
        return;
    std::fprintf(stderr, "trainbench: exiting without the window (the display went away?): "
                         "stopping the run after its current step, with a checkpoint\n");
    g_window->finishRunsNow();
}

// The set-up of a config file (--config), as the CLI reads one; exits 2 naming what is wrong.
tb::RunConfig configOrExit(const QString& path) {
    try {
        tb::RunConfig config;
        config.applyJson(tb::parseJson(tb::readJsonText(path.toStdString()), path.toStdString()));
        config.validate();
        return config;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "trainbench: error: --config %s: %s\n", qPrintable(path), e.what());
        std::exit(2);
    }
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("TrainBench"));
    QApplication::setOrganizationName(QStringLiteral("TrainBench"));
    QApplication::setApplicationVersion(QStringLiteral(TB_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Train neural networks and watch where the time goes."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption db(QStringLiteral("db"),
                                QStringLiteral("The run store (default: the CLI's)."),
                                QStringLiteral("PATH"));
    parser.addOption(db);
    const QCommandLineOption config(
        QStringLiteral("config"),
        QStringLiteral(
            "Set up the run from a JSON config file (as trainbench-cli train --config)."),
        QStringLiteral("FILE"));
    parser.addOption(config);
    const QCommandLineOption train(QStringLiteral("train"),
                                   QStringLiteral("Start training the set-up's run at once."));
    parser.addOption(train);
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Write the window to a PNG file once it is shown, then quit."),
        QStringLiteral("PNG"));
    parser.addOption(screenshot);
    parser.process(app);

    const QString databasePath =
        parser.isSet(db) ? parser.value(db) : QString::fromStdString(tb::defaultDatabasePath());
    tb::ui::MainWindow window(databasePath);
    if (parser.isSet(config))
        window.setup().setConfig(configOrExit(parser.value(config)));
    tb::ui::UnixSignalWatcher unixSignals;
    QObject::connect(&unixSignals, &tb::ui::UnixSignalWatcher::received, &window,
                     &tb::ui::MainWindow::quitOnSignal);
    g_window = &window;
    std::atexit(finishRunsAtExit);
    window.show();
    // Its X window destroyed by another program: nothing is seen any more, so the run stops as
    // for a lost display, after its current step with a checkpoint, and the process ends.
    tb::ui::WindowLossWatcher windowLoss(window);
    QObject::connect(
        &windowLoss, &tb::ui::WindowLossWatcher::lost, &window,
        [] {
            std::fprintf(stderr, "trainbench: the window was destroyed by another program: "
                                 "stopping the run after its current step, with a checkpoint\n");
            QApplication::exit(1);
        },
        Qt::QueuedConnection);
    if (parser.isSet(train)) {
        // Once the set-up column has opened the dataset (in the background): at its first
        // change that leaves it ready, or at once if it already is.
        auto* pending = new QObject(&window); // lives until training started or was refused
        const auto trainWhenReady = [&window, pending] {
            if (window.setup().busy() || pending->property("done").toBool())
                return;
            pending->setProperty("done", true);
            if (!window.train())
                std::fprintf(stderr, "trainbench: cannot train this set-up: %s\n",
                             qPrintable(window.setup().blocker()));
            pending->deleteLater();
        };
        QObject::connect(&window.setup(), &tb::ui::SetupPanel::changed, pending, trainWhenReady);
        QTimer::singleShot(0, pending, trainWhenReady);
    }
    if (parser.isSet(screenshot)) // a check that the window comes up (the install test's)
        QTimer::singleShot(0, &window, [&] {
            const QString path = parser.value(screenshot);
            const bool saved = window.grab().save(path, "PNG");
            if (!saved)
                std::fprintf(stderr, "trainbench: error: cannot write %s\n", qPrintable(path));
            QApplication::exit(saved ? 0 : 1);
        });
    const int code = QApplication::exec();
    g_window = nullptr; // a normal end: the window's destructor finishes the runs
    return code;
}

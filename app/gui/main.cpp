// trainbench: the desktop window. Sets up the application and shows the main window.
#include "mainwindow.h"

#include "store/runstore.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QPixmap>
#include <QTimer>

#include <cstdio>

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
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Write the window to a PNG file once it is shown, then quit."),
        QStringLiteral("PNG"));
    parser.addOption(screenshot);
    parser.process(app);

    const QString databasePath =
        parser.isSet(db) ? parser.value(db) : QString::fromStdString(tb::defaultDatabasePath());
    tb::ui::MainWindow window(databasePath);
    window.show();
    if (parser.isSet(screenshot)) // a check that the window comes up (the install test's)
        QTimer::singleShot(0, &window, [&] {
            const QString path = parser.value(screenshot);
            const bool saved = window.grab().save(path, "PNG");
            if (!saved)
                std::fprintf(stderr, "trainbench: error: cannot write %s\n", qPrintable(path));
            QApplication::exit(saved ? 0 : 1);
        });
    return QApplication::exec();
}

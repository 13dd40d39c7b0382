// trainbench: the desktop window. Sets up the application and shows the main window.
#include "mainwindow.h"

#include "store/runstore.h"

#include <QApplication>
#include <QCommandLineParser>

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
    parser.process(app);

    const QString databasePath =
        parser.isSet(db) ? parser.value(db) : QString::fromStdString(tb::defaultDatabasePath());
    tb::ui::MainWindow window(databasePath);
    window.show();
    return QApplication::exec();
}

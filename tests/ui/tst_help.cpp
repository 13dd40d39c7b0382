// The Help window: every guide is listed with its headings (the user guide first), each page
// renders with its screenshots, a search lists where its words occur and opens the page there,
// links between guides stay in the window, and F1 opens the user guide.
#include "help/helpdocuments.h"
#include "help/helpwindow.h"
#include "mainwindow.h"

#include <QAction>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QtTest>

using namespace tb::ui;

class TestHelp : public QObject {
    Q_OBJECT
private slots:
    void everyGuideIsListedWithItsHeadings() {
        HelpWindow help;
        const QTreeWidget* contents = help.contents();
        QStringList titles;
        for (int i = 0; i < contents->topLevelItemCount(); ++i)
            titles << contents->topLevelItem(i)->text(0);
        QCOMPARE(titles.mid(0, 3), (QStringList{"TrainBench user guide", "Teaching with TrainBench",
                                                "Developer guide"}));
        for (const char* reference : {"Model specs", "Datasets", "The run store"})
            QVERIFY2(titles.contains(reference), reference);
        QVERIFY(contents->topLevelItem(0)->childCount() >= 8); // the user guide's sections
        QCOMPARE(help.currentFile(), QString("user-guide.md"));
    }

    // Every screenshot a guide shows is in the program's resources, and the page draws it.
    void pagesShowTheirScreenshots() {
        HelpDocuments docs;
        static const QRegularExpression image(QStringLiteral("!\\[[^]]*\\]\\(([^)]+)\\)"));
        int images = 0;
        HelpWindow help;
        for (const HelpDocument& d : docs.documents()) {
            help.showDocument(d.file);
            for (auto it = image.globalMatch(d.markdown); it.hasNext();) {
                const QString path = it.next().captured(1);
                QVERIFY2(QFile::exists(":/docs/" + path), qPrintable(d.file + ": " + path));
                const QVariant drawn =
                    help.page()->document()->resource(QTextDocument::ImageResource, QUrl(path));
                QVERIFY2(drawn.isValid(), qPrintable(path));
                ++images;
            }
        }
        QVERIFY(images >= 12);
    }

    void searchListsWhereTheWordsAreAndOpensThere() {
        HelpWindow help;
        help.search("sync_batchnorm ranks");
        const QTreeWidget* results = help.contents();
        QVERIFY(results->topLevelItemCount() >= 1);
        QTreeWidgetItem* guide = results->topLevelItem(0);
        QCOMPARE(guide->text(0), QString("TrainBench user guide"));
        QVERIFY(guide->childCount() >= 1);
        QTreeWidgetItem* hit = guide->child(0);
        QVERIFY2(hit->text(0).startsWith("Data-parallel training: "), qPrintable(hit->text(0)));
        emit help.contents()->itemClicked(hit, 0);
        QCOMPARE(help.currentFile(), QString("user-guide.md"));
        QCOMPARE(help.page()->textCursor().selectedText().toLower(), QString("sync_batchnorm"));

        help.search("no such words anywhere");
        QCOMPARE(results->topLevelItemCount(), 1);
        QVERIFY(results->topLevelItem(0)->text(0).startsWith("Nothing found"));
        help.search("");
        QVERIFY(results->topLevelItemCount() >= 7); // the contents again
    }

    void linksBetweenGuidesOpenInTheWindow() {
        HelpWindow help;
        emit help.page()->anchorClicked(QUrl("teaching.md#running-a-lesson"));
        QCOMPARE(help.currentFile(), QString("teaching.md"));
        QCOMPARE(help.page()->textCursor().selectedText(), QString("Running a lesson"));
        QVERIFY(help.windowTitle().startsWith("Teaching with TrainBench"));
    }

    void f1OpensTheUserGuide() {
        QTemporaryDir dir;
        MainWindow w(dir.filePath("runs.db"));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QAction* guide = w.findChild<QAction*>("action-user-guide");
        QVERIFY(guide);
        QCOMPARE(guide->shortcut(), QKeySequence(QKeySequence::HelpContents));
        guide->trigger();
        auto* help = w.findChild<HelpWindow*>("help-window");
        QVERIFY(help);
        QTRY_VERIFY(help->isVisible());
        QCOMPARE(help->currentFile(), QString("user-guide.md"));
    }
};

QTEST_MAIN(TestHelp)
#include "tst_help.moc"

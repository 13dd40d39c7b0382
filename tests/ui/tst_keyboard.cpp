// The window by keyboard and when a write fails: Tab walks every enabled interactive widget
// once, in reading order, and cycles, each stop showing a focus frame in light and dark; the
// charts pan, zoom, fit and export from the keyboard; every stop has an accessible name; the
// menus hold the standard commands; an export or settings write that fails shows a message box
// naming the path and the reason, and a log line.
#include "charts/chartspanel.h"
#include "charts/chartview.h"
#include "charts/losschart.h"
#include "darkpalette.h"
#include "keyboard/tabstops.h"
#include "mainwindow.h"
#include "runcontroller.h"
#include "setup/setuppanel.h"
#include "uitestutil.h"

#include <QAccessible>
#include <QAction>
#include <QApplication>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <QTabBar>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QToolBar>
#include <QtTest>
#include <qcustomplot.h>

using namespace tb;
using tb::ui::MainWindow;
using State = tb::ui::RunController::State;

namespace {

// Every widget of the window Tab should reach, found without the window's own list: it takes
// tab focus, is visible and enabled, and hands its focus to no proxy.
QSet<QWidget*> interactiveWidgets(QWidget& window) {
    QSet<QWidget*> all;
    for (QWidget* w : window.findChildren<QWidget*>())
        if (!w->isWindow() && (w->focusPolicy() & Qt::TabFocus) == Qt::TabFocus && w->isVisible() &&
            w->isEnabled() && !w->focusProxy())
            all.insert(w);
    return all;
}

QRect rectInWindow(const QWidget* w) {
    return QRect(w->mapTo(w->window(), QPoint(0, 0)), w->size());
}

QString describe(const QWidget* w) {
    return QStringLiteral("%1 '%2'").arg(QString::fromLatin1(w->metaObject()->className()),
                                         w->objectName());
}

// What a screen reader says for the widget: the labels related to it (a form row's label, its
// buddy) and then its name. On Linux a combo box's name is its current value, so two rows whose
// values read "auto" are still told apart by their labels, as Orca tells them apart.
QString accessibleName(QWidget* w) {
    QAccessibleInterface* a = QAccessible::queryAccessibleInterface(w);
    if (!a)
        return {};
    QString said;
    for (const auto& [label, relation] : a->relations(QAccessible::Label))
        said += label->text(QAccessible::Name) + QLatin1Char(' ');
    return said + a->text(QAccessible::Name);
}

// The message box a failed write opened, once it is there.
QMessageBox* writeFailedBox(MainWindow& w) {
    return w.findChild<QMessageBox*>(QStringLiteral("write-failed"));
}

} // namespace

class TestKeyboard : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    // A window with a tiny run trained, so every chart has data and every control is live.
    void trainTinyRun(MainWindow& w) {
        w.setup().setConfig(test::tinyRunConfig(m_dir.filePath("ckpt")));
        auto* train = w.findChild<QAction*>("action-train");
        QTRY_VERIFY_WITH_TIMEOUT(train->isEnabled(), 30000);
        QVERIFY(w.train());
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Idle, 120000);
    }

private slots:
    void initTestCase() {
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath("settings"));
        QApplication::setStyle(QStyleFactory::create("Fusion"));
    }
    void init() { QSettings().clear(); }

    void tabWalksTheWindowInReadingOrder_data() {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }
    void tabWalksTheWindowInReadingOrder() {
        QFETCH(bool, dark);
        QApplication::setPalette(dark ? test::darkPalette()
                                      : QApplication::style()->standardPalette());
        MainWindow w(m_dir.filePath("runs.db"));
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        trainTinyRun(w);

        const QSet<QWidget*> expected = interactiveWidgets(w);
        QWidget* start = w.findChild<QWidget*>("dataset");
        QVERIFY(start && expected.contains(start));
        start->setFocus(Qt::TabFocusReason);
        QList<QWidget*> visited{start};
        for (int press = 0; press < 2 * expected.size() + 10; ++press) {
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
            QWidget* now = QApplication::focusWidget();
            if (now == start)
                break;
            if (now == visited.back())
                continue; // a widget with stops of its own: the log walks its "Why?" links
            QVERIFY2(!visited.contains(now), qPrintable("reached twice: " + describe(now)));
            visited << now;
        }
        QCOMPARE(QApplication::focusWidget(), start); // it cycled
        QStringList missed, extra;
        for (QWidget* e : expected)
            if (!visited.contains(e))
                missed << describe(e);
        for (QWidget* v : visited)
            if (!expected.contains(v))
                extra << describe(v);
        QVERIFY2(missed.isEmpty(), qPrintable("never reached: " + missed.join(", ")));
        QVERIFY2(extra.isEmpty(), qPrintable("not interactive: " + extra.join(", ")));

        // The regions in reading order: set-up, tool bar, tab bar, the charts, the log.
        auto* scroll = w.findChild<QScrollArea*>("setup-scroll");
        auto* bar = w.findChild<QToolBar*>("run-toolbar");
        QTabBar* tabs = w.findChild<QTabWidget*>("views")->tabBar();
        auto* charts = w.findChild<QWidget*>("charts-panel");
        auto* log = w.findChild<QTextBrowser*>("log");
        const auto region = [&](QWidget* v) {
            if (scroll->isAncestorOf(v))
                return 0;
            if (bar->isAncestorOf(v))
                return 1;
            if (v == tabs)
                return 2;
            if (charts->isAncestorOf(v))
                return 3;
            return v == log ? 4 : -1;
        };
        for (qsizetype i = 1; i < visited.size(); ++i) {
            QVERIFY2(region(visited[i]) >= region(visited[i - 1]),
                     qPrintable(describe(visited[i]) + " after " + describe(visited[i - 1])));
            if (region(visited[i]) == 0 && region(visited[i - 1]) == 0) // top to bottom
                QVERIFY2(rectInWindow(visited[i]).bottom() >= rectInWindow(visited[i - 1]).top(),
                         qPrintable(describe(visited[i]) + " above " + describe(visited[i - 1])));
        }
        for (QWidget* chart : w.charts().findChildren<QCustomPlot*>())
            if (chart->isVisible())
                QVERIFY2(visited.contains(chart), qPrintable(describe(chart->parentWidget())));
        QVERIFY(visited.contains(log));
        QVERIFY(visited.contains(tabs));

        // Every stop looks different with the focus than without: a visible focus frame. The
        // text cursor is switched off so that only the frame can make the difference.
        QApplication::setCursorFlashTime(0);
        QStringList unframed;
        for (QWidget* v : visited) {
            if (scroll->isAncestorOf(v))
                scroll->ensureWidgetVisible(v);
            const QRect around = rectInWindow(v).adjusted(-4, -4, 4, 4) & w.rect();
            v->setFocus(Qt::TabFocusReason);
            QApplication::processEvents();
            const QImage focused = w.grab(around).toImage();
            (v == start ? log : static_cast<QWidget*>(start))->setFocus(Qt::TabFocusReason);
            QApplication::processEvents();
            const QImage unfocused = w.grab(around).toImage();
            if (focused == unfocused)
                unframed << describe(v);
        }
        QApplication::setCursorFlashTime(1000);
        QVERIFY2(unframed.isEmpty(), qPrintable("no visible focus: " + unframed.join(", ")));
    }

    // Each stop says what it is to a screen reader, and no two say the same.
    void everyStopHasAnAccessibleName() {
        MainWindow w(m_dir.filePath("runs.db"));
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        trainTinyRun(w);
        QStringList unnamed;
        QMap<QString, QString> seen;
        QStringList clashes;
        auto* tabs = w.findChild<QTabWidget*>("views");
        QList<QWidget*> stops;
        for (int i = 0; i < tabs->count(); ++i) { // the stops of every tab
            tabs->setCurrentIndex(i);
            for (QWidget* v : w.tabStops())
                if (!stops.contains(v))
                    stops << v;
        }
        for (QWidget* v : stops) {
            const QString name = accessibleName(v);
            if (name.trimmed().isEmpty()) {
                unnamed << describe(v);
                continue;
            }
            if (seen.contains(name))
                clashes << QStringLiteral("%1 and %2: '%3'").arg(seen[name], describe(v), name);
            seen[name] = describe(v);
        }
        QVERIFY2(unnamed.isEmpty(), qPrintable("no accessible name: " + unnamed.join(", ")));
        QVERIFY2(clashes.isEmpty(), qPrintable(clashes.join("; ")));
        for (QCustomPlot* plot : w.charts().findChildren<QCustomPlot*>()) {
            QAccessibleInterface* a = QAccessible::queryAccessibleInterface(plot);
            QVERIFY(a && !a->text(QAccessible::Description).isEmpty());
        }
    }

    // Arrows pan by a tenth of the view, + and - zoom about its centre, Home fits all data.
    void chartKeysPanZoomAndFit() {
        MainWindow w(m_dir.filePath("runs.db"));
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        trainTinyRun(w);
        ui::LossChart* chart = w.charts().lossChart();
        QCustomPlot* plot = chart->plot();
        plot->setFocus(Qt::TabFocusReason);
        QCPAxis* x = plot->xAxis;
        QCPAxis* y = plot->yAxis;
        const QCPRange fitted = x->range(), fittedY = y->range();
        QTest::keyClick(plot, Qt::Key_Right);
        QVERIFY(qFuzzyCompare(x->range().lower, fitted.lower + fitted.size() * 0.1));
        QVERIFY(!chart->isAutoscaling());
        QTest::keyClick(plot, Qt::Key_Up);
        QVERIFY(qFuzzyCompare(y->range().lower, fittedY.lower + fittedY.size() * 0.1));
        const QCPRange before = x->range();
        QTest::keyClick(plot, Qt::Key_Plus);
        QVERIFY(qFuzzyCompare(x->range().size(), before.size() * 0.8));
        QVERIFY(qFuzzyCompare(x->range().center(), before.center()));
        QTest::keyClick(plot, Qt::Key_Minus);
        QVERIFY(qFuzzyCompare(x->range().size(), before.size()));
        QTest::keyClick(plot, Qt::Key_Home);
        QVERIFY(chart->isAutoscaling());
        QCOMPARE(x->range().lower, fitted.lower);
        QCOMPARE(x->range().upper, fitted.upper);

        // Ctrl+E opens the chart's export menu (closed again here).
        QTimer::singleShot(0, this, [] {
            QTRY_VERIFY(qobject_cast<QMenu*>(QApplication::activePopupWidget()));
            QApplication::activePopupWidget()->close();
        });
        QTest::keyClick(plot, Qt::Key_E, Qt::ControlModifier);
    }

    // Exports to a pseudo file system and into a folder that does not exist: both are shown
    // in a message box naming the path and the reason, and logged.
    void aFailedExportIsShownAndLogged() {
        MainWindow w(m_dir.filePath("runs.db"));
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        trainTinyRun(w);
        ui::LossChart* chart = w.charts().lossChart();
        const auto log = [&] { return w.findChild<QTextBrowser*>("log")->toPlainText(); };
        for (const QString& path :
             {QStringLiteral("/proc/loss.csv"), m_dir.filePath("no-such-folder/loss.png")}) {
            const bool ok = path.endsWith(".csv") ? chart->exportCsv(path) : chart->exportPng(path);
            QVERIFY(!ok);
            QMessageBox* box = nullptr;
            QTRY_VERIFY((box = writeFailedBox(w)) && box->isVisible());
            QVERIFY2(box->text().contains(path), qPrintable(box->text()));
            QVERIFY2(box->text().count(':') >= 1, qPrintable(box->text())); // the reason
            QVERIFY2(log().contains("Could not write " + path), qPrintable(log()));
            box->close();
            QTRY_VERIFY(!writeFailedBox(w));
        }
        // File > Export Charts into a folder that cannot be written stops at the first file.
        QCOMPARE(w.exportCharts("/proc/no-such-folder"), 0);
        QTRY_VERIFY(writeFailedBox(w));
        writeFailedBox(w)->close();
        QCOMPARE(w.exportCharts(m_dir.path()), 8); // four charts, PNG and CSV each
        QVERIFY(QFile::exists(m_dir.filePath("training-loss.csv")));
    }

    // Settings that cannot be saved are said on closing, not dropped.
    void settingsThatCannotBeSavedAreReported() {
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, "/proc/tb-settings");
        auto restore = qScopeGuard([this] {
            QSettings::setPath(QSettings::IniFormat, QSettings::UserScope,
                               m_dir.filePath("settings"));
        });
        MainWindow w(m_dir.filePath("runs.db"));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QString text;
        QTimer::singleShot(0, this, [&] {
            QMessageBox* box = nullptr;
            QTRY_VERIFY((box = writeFailedBox(w)) && box->isVisible());
            text = box->text();
            box->close();
        });
        w.close();
        QVERIFY2(text.contains("/proc/tb-settings"), qPrintable(text));
        QVERIFY(w.findChild<QTextBrowser*>("log")->toPlainText().contains("/proc/tb-settings"));
    }

    // The standard menus, with the standard keys where Qt has them.
    void menusHoldTheStandardCommands() {
        MainWindow w(m_dir.filePath("runs.db"));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QStringList titles;
        for (QAction* a : w.menuBar()->actions())
            titles << a->text().remove('&');
        QCOMPARE(titles, (QStringList{"File", "Edit", "View", "Run", "Help"}));
        const auto shortcutOf = [&](const QString& menu, const QString& text) {
            for (QAction* a : w.findChild<QMenu*>("menu-" + menu)->actions())
                if (a->text().remove('&') == text)
                    return a->shortcut();
            return QKeySequence();
        };
        QCOMPARE(shortcutOf("file", "Open Dataset Folder..."), QKeySequence(QKeySequence::Open));
        QCOMPARE(shortcutOf("file", "Quit"), QKeySequence(QKeySequence::Quit));
        QCOMPARE(shortcutOf("edit", "Delete..."), QKeySequence(QKeySequence::Delete));
        QCOMPARE(shortcutOf("run", "Train"), QKeySequence(Qt::CTRL | Qt::Key_Return));
        // View hides and shows the set-up column and the log.
        auto* setupToggle = w.findChild<QAction*>("view-setup");
        setupToggle->trigger();
        QVERIFY(!w.findChild<QScrollArea*>("setup-scroll")->isVisible());
        setupToggle->trigger();
        QVERIFY(w.findChild<QScrollArea*>("setup-scroll")->isVisible());
        w.findChild<QAction*>("view-log")->trigger();
        QVERIFY(!w.findChild<QTextBrowser*>("log")->isVisible());
        // Every tool bar button has an icon (the theme's or ours).
        for (QAction* a : w.findChild<QToolBar*>("run-toolbar")->actions())
            if (!a->isSeparator() && !a->text().isEmpty() && a->objectName().startsWith("action-"))
                QVERIFY2(!a->icon().isNull(), qPrintable(a->text()));
    }
};

QTEST_MAIN(TestKeyboard)
#include "tst_keyboard.moc"

// The window at every size a screen gives it, light and dark. The set-up column: with an error
// under every field at once (and one value 300 digits long), no two controls overlap, none
// reaches past the column's viewport, and every wrapped message gets its lines. The charts of a
// trained run: no legend squeezed or over another entry, no axis title longer than its axis, no
// two axis rects over each other. And the window opens within the screen.
#include "charts/chartview.h"
#include "darkpalette.h"
#include "mainwindow.h"
#include "runcontroller.h"
#include "setup/columnscrollarea.h"
#include "setup/setuppanel.h"
#include "uitestutil.h"

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QImage>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QMap>
#include <QScreen>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

using namespace tb;

namespace {

// The controls a user sees in the column: labels, editors and buttons, not their containers.
QList<QWidget*> visibleControls(QWidget* column) {
    QList<QWidget*> out;
    for (QWidget* w : column->findChildren<QWidget*>()) {
        const bool control = qobject_cast<QLabel*>(w) || qobject_cast<QLineEdit*>(w) ||
                             qobject_cast<QComboBox*>(w) || qobject_cast<QAbstractButton*>(w);
        // Inside a combo box or another control: part of that control.
        bool part = false;
        for (QWidget* p = w->parentWidget(); p && p != column; p = p->parentWidget())
            part = part || qobject_cast<QComboBox*>(p) || qobject_cast<QLineEdit*>(p);
        if (control && !part && w->isVisibleTo(column) && !w->size().isEmpty())
            out << w;
    }
    return out;
}

QRect inColumn(QWidget* w, QWidget* column) {
    return QRect(w->mapTo(column, QPoint(0, 0)), w->size());
}

QString describe(QWidget* w) {
    const auto* label = qobject_cast<QLabel*>(w);
    return QStringLiteral("%1 '%2'%3")
        .arg(QString::fromLatin1(w->metaObject()->className()), w->objectName(),
             label ? QStringLiteral(" \"%1\"").arg(label->text().left(40)) : QString());
}

} // namespace

class TestSetupLayout : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_tmp.filePath("settings"));
        QApplication::setStyle(QStyleFactory::create("Fusion"));
    }

    void errorsEverywhereOverlapNothing_data() {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("dark");
        for (const QSize size : {QSize(1280, 800), QSize(1024, 700), QSize(800, 600)})
            for (const bool dark : {false, true})
                QTest::newRow(qPrintable(QStringLiteral("%1x%2-%3")
                                             .arg(size.width())
                                             .arg(size.height())
                                             .arg(dark ? "dark" : "light")))
                    << size << dark;
    }
    void errorsEverywhereOverlapNothing() {
        QFETCH(QSize, size);
        QFETCH(bool, dark);
        QApplication::setPalette(dark ? test::darkPalette()
                                      : QApplication::style()->standardPalette());
        QSettings().clear();
        ui::MainWindow w(m_tmp.filePath("runs.db"));
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* scroll = w.findChild<ui::ColumnScrollArea*>("setup-scroll");
        QVERIFY(scroll);
        QWidget* column = scroll->widget();

        // Every text field gets a value it refuses, batch_size one 300 digits long.
        for (QLineEdit* edit : column->findChildren<QLineEdit*>()) {
            if (!edit->isVisibleTo(column) || edit->objectName().isEmpty())
                continue;
            edit->setFocus();
            edit->selectAll();
            QTest::keyClicks(edit, edit->objectName() == QLatin1String("batch_size")
                                       ? QString(300, QLatin1Char('9'))
                                       : QStringLiteral("-0.5x"));
        }
        QApplication::processEvents();
        int errors = 0;
        for (QLabel* l : column->findChildren<QLabel*>())
            errors += l->objectName().endsWith(QLatin1String("-error")) && l->isVisibleTo(column);
        QVERIFY2(errors >= 5, qPrintable(QString::number(errors)));

        // The set-up column re-reads the config after an edit (the memory estimate, the layer
        // table) and may lay itself out once more: wait until it has its height for its width.
        QTRY_VERIFY(column->height() >= column->layout()->totalHeightForWidth(column->width()));
        QTRY_VERIFY2(firstLayoutFault(scroll).isEmpty(), qPrintable(firstLayoutFault(scroll)));
        // The tool bar still shows why Train is disabled (elided, never pushed behind ">>").
        auto* reason = w.findChild<QWidget*>("train-blocker");
        QVERIFY(reason && reason->isVisible() && reason->width() > 0);
        QVERIFY(QRect(QPoint(0, 0), w.size())
                    .contains(QRect(reason->mapTo(&w, QPoint(0, 0)), reason->size())));
    }

    void chartsKeepTheirPartsApart_data() { errorsEverywhereOverlapNothing_data(); }
    void chartsKeepTheirPartsApart() {
        QFETCH(QSize, size);
        QFETCH(bool, dark);
        QApplication::setPalette(dark ? test::darkPalette()
                                      : QApplication::style()->standardPalette());
        QSettings().clear();
        ui::MainWindow w(m_tmp.filePath("charts.db"));
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.setup().setConfig(test::tinyRunConfig(m_tmp.filePath("ckpt")));
        QTRY_VERIFY_WITH_TIMEOUT(w.setup().blocker().isEmpty(), 30000);
        // Before any run (the hardware chart's host view with its first samples), then after.
        const QString before = chartsFault(w, 4);
        QVERIFY2(before.isEmpty(), qPrintable(before));
        QVERIFY(w.train());
        QTRY_VERIFY_WITH_TIMEOUT(w.controller().state() == ui::RunController::State::Idle, 60000);
        const QString after = chartsFault(w, 4);
        QVERIFY2(after.isEmpty(), qPrintable(after));
    }

    // On a screen smaller than 1280x800 the window opens within what the screen offers.
    // A folder of the user's images: its summary wraps to two lines and the class names and
    // sample grid below it move down, at the narrowest column too.
    void aWrappedDatasetSummaryOverlapsNothing_data() { errorsEverywhereOverlapNothing_data(); }
    void aWrappedDatasetSummaryOverlapsNothing() {
        QFETCH(QSize, size);
        QFETCH(bool, dark);
        QApplication::setPalette(dark ? test::darkPalette()
                                      : QApplication::style()->standardPalette());
        QSettings().clear();
        const QString root = m_tmp.filePath("photos");
        for (const char* name : {"blue", "green", "red"}) {
            QVERIFY(QDir().mkpath(root + "/" + name));
            for (int i = 0; i < 4; ++i) {
                QImage image(48, 48, QImage::Format_RGB888);
                image.fill(QColor(name));
                QVERIFY(image.save(QStringLiteral("%1/%2/%3.png").arg(root, name).arg(i)));
            }
        }
        ui::MainWindow w(m_tmp.filePath("runs.db"));
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        RunConfig config;
        config.data.name = "imagefolder";
        config.data.root = root.toStdString();
        config.data.imageSize = 64;
        config.model = "resnet18";
        w.setup().setConfig(config);
        auto* scroll = w.findChild<ui::ColumnScrollArea*>("setup-scroll");
        QVERIFY(scroll);
        QWidget* column = scroll->widget();
        auto* classes = column->findChild<QLabel*>("dataset-classes");
        QTRY_VERIFY(classes->isVisibleTo(column) && classes->text().contains("green"));
        // The grid's pixmap arrives with the class names, and the column lays itself out again.
        QTRY_VERIFY2(firstLayoutFault(scroll).isEmpty(), qPrintable(firstLayoutFault(scroll)));
    }

    void theWindowOpensWithinTheScreen() {
        QSettings().clear();
        ui::MainWindow w(m_tmp.filePath("runs.db"));
        const QRect available = w.screen()->availableGeometry();
        QVERIFY(w.width() <= available.width());
        QVERIFY(w.height() <= available.height());
        QVERIFY2(w.minimumSizeHint().width() <= 800 && w.minimumSizeHint().height() <= 600,
                 qPrintable(QStringLiteral("%1x%2")
                                .arg(w.minimumSizeHint().width())
                                .arg(w.minimumSizeHint().height())));
    }

private:
private:
    // The first fault in the visible charts' layouts, or nothing; at least `expected` checked.
    static QString chartsFault(ui::MainWindow& w, int expected) {
        int checked = 0;
        for (ui::ChartView* chart : w.findChildren<ui::ChartView*>()) {
            if (!chart->isVisible())
                continue;
            QCustomPlot* plot = chart->plot();
            plot->replot(); // and the second layout pass fitDecorations may ask for
            QApplication::processEvents();
            plot->replot();
            const QString name = chart->title();
            const QCPLegend* legend = plot->legend;
            if (legend->visible()) {
                if (legend->outerRect().height() < legend->minimumOuterSizeHint().height())
                    return name + ": the legend is squeezed";
                QList<QRect> entries;
                for (int i = 0; i < legend->itemCount(); ++i) {
                    const QCPAbstractLegendItem* item = legend->item(i); // null: an empty cell
                    if (!item)
                        continue;
                    for (const QRect& other : std::as_const(entries))
                        if (other.intersects(item->outerRect()))
                            return name + ": legend entries overlap";
                    entries << item->outerRect();
                }
            }
            const QList<QCPAxisRect*> rects = plot->axisRects();
            // Side by side, rects share the width: all of it but their axes' margins.
            QMap<int, int> rowWidths; // summed outer widths of the rects at each top edge
            for (QCPAxisRect* rect : rects)
                rowWidths[rect->outerRect().top()] += rect->outerRect().width();
            for (int width : std::as_const(rowWidths))
                if (width < plot->width() * 9 / 10)
                    return name + QStringLiteral(": axis rects %1 px wide in a %2 px plot")
                                      .arg(width)
                                      .arg(plot->width());
            for (int i = 0; i < rects.size(); ++i) {
                for (int j = i + 1; j < rects.size(); ++j)
                    if (rects[i]->rect().intersects(rects[j]->rect()))
                        return name + ": axis rects overlap";
                for (QCPAxis* axis : rects[i]->axes(QCPAxis::atLeft | QCPAxis::atRight))
                    if (axis->visible() && !axis->label().isEmpty() &&
                        QFontMetrics(axis->labelFont()).horizontalAdvance(axis->label()) >
                            rects[i]->height())
                        return name + ": the title '" + axis->label() + "' is longer than its axis";
            }
            ++checked;
        }
        if (checked < expected)
            return QStringLiteral("%1 charts visible, %2 expected").arg(checked).arg(expected);
        return {};
    }

    // The first control of the set-up column that reaches past its viewport or over another,
    // or a wrapped label shorter than its lines; empty when there is none.
    static QString firstLayoutFault(ui::ColumnScrollArea* scroll) {
        QWidget* column = scroll->widget();
        const int viewportWidth = scroll->viewport()->width();
        if (column->width() != viewportWidth)
            return QStringLiteral("the column is %1 px wide in a %2 px viewport")
                .arg(column->width())
                .arg(viewportWidth);
        const QList<QWidget*> controls = visibleControls(column);
        if (controls.size() <= 20)
            return QStringLiteral("only %1 controls shown").arg(controls.size());
        for (int i = 0; i < controls.size(); ++i) {
            const QRect a = inColumn(controls[i], column);
            if (a.right() >= viewportWidth)
                return describe(controls[i]) + " reaches past the column";
            if (auto* label = qobject_cast<QLabel*>(controls[i]); label && label->wordWrap())
                if (label->height() < label->heightForWidth(label->width()))
                    return describe(label) + " is shorter than its text";
            for (int j = i + 1; j < controls.size(); ++j) {
                if (controls[i]->isAncestorOf(controls[j]) ||
                    controls[j]->isAncestorOf(controls[i]))
                    continue;
                if (a.intersects(inColumn(controls[j], column)))
                    return describe(controls[i]) + " overlaps " + describe(controls[j]);
            }
        }
        return {};
    }

    QTemporaryDir m_tmp;
};

QTEST_MAIN(TestSetupLayout)
#include "tst_setuplayout.moc"

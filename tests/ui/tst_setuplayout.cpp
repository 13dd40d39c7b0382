// The set-up column at every size a screen gives it, light and dark: with an error under every
// field at once (and one value 300 digits long), no two controls overlap, none reaches past the
// column's viewport, and every wrapped message gets its lines. And the window fits small
// screens: it opens within the available geometry.
#include "darkpalette.h"
#include "mainwindow.h"
#include "setup/columnscrollarea.h"
#include "setup/setuppanel.h"

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QScreen>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <QTemporaryDir>
#include <QtTest>

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
        const int viewportWidth = scroll->viewport()->width();
        QCOMPARE(column->width(), viewportWidth);
        const QList<QWidget*> controls = visibleControls(column);
        QVERIFY(controls.size() > 20);
        for (int i = 0; i < controls.size(); ++i) {
            const QRect a = inColumn(controls[i], column);
            QVERIFY2(a.right() < viewportWidth,
                     qPrintable(describe(controls[i]) + " reaches past the column"));
            // A wrapped label is as tall as its lines.
            if (auto* label = qobject_cast<QLabel*>(controls[i]); label && label->wordWrap())
                QVERIFY2(label->height() >= label->heightForWidth(label->width()),
                         qPrintable(describe(label) + " is shorter than its text"));
            for (int j = i + 1; j < controls.size(); ++j) {
                if (controls[i]->isAncestorOf(controls[j]) ||
                    controls[j]->isAncestorOf(controls[i]))
                    continue;
                QVERIFY2(!a.intersects(inColumn(controls[j], column)),
                         qPrintable(describe(controls[i]) + " overlaps " + describe(controls[j])));
            }
        }
        // The tool bar still shows why Train is disabled (elided, never pushed behind ">>").
        auto* reason = w.findChild<QWidget*>("train-blocker");
        QVERIFY(reason && reason->isVisible() && reason->width() > 0);
        QVERIFY(QRect(QPoint(0, 0), w.size())
                    .contains(QRect(reason->mapTo(&w, QPoint(0, 0)), reason->size())));
    }

    // On a screen smaller than 1280x800 the window opens within what the screen offers.
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
    QTemporaryDir m_tmp;
};

QTEST_MAIN(TestSetupLayout)
#include "tst_setuplayout.moc"

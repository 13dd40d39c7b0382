// Screenshots of every view of the window, for looking at (tests/ui/screenshots.sh runs this
// under xvfb-run). Not a ctest: it asserts only that each view reached the state it shows.
// TB_SHOTS_DIR names the output folder.
#include "darkpalette.h"
#include "mainwindow.h"
#include "runcontroller.h"
#include "setup/setuppanel.h"
#include "status/failurebanner.h"
#include "uitestutil.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QLineEdit>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

using namespace tb;
using State = tb::ui::RunController::State;

namespace {

RunConfig showcaseRun(const QString& dir) {
    RunConfig c = test::tinyRunConfig(dir, 4);
    c.set("data.synthetic_samples", "1200");
    c.set("data.image_size", "24");
    c.set("precision", "16-mixed");
    return c;
}

} // namespace

class WindowShots : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    QDir m_out;

    void save(QWidget& w, const QString& name) {
        QApplication::processEvents();
        QVERIFY(w.grab().save(m_out.filePath(name + ".png")));
        qInfo("%s", qPrintable(m_out.filePath(name + ".png")));
    }

private slots:
    void initTestCase() {
        m_out = QDir(qEnvironmentVariable("TB_SHOTS_DIR", "/tmp/tb-shots"));
        QVERIFY(m_out.mkpath("."));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_tmp.filePath("settings"));
        QApplication::setStyle(QStyleFactory::create("Fusion"));
    }

    void views_data() {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("dark");
        QTest::newRow("1280x800-light") << QSize(1280, 800) << false;
        QTest::newRow("1280x800-dark") << QSize(1280, 800) << true;
        QTest::newRow("1920x1080-light") << QSize(1920, 1080) << false;
        QTest::newRow("1920x1080-dark") << QSize(1920, 1080) << true;
    }
    void views() {
        QFETCH(QSize, size);
        QFETCH(bool, dark);
        QApplication::setPalette(dark ? test::darkPalette()
                                      : QApplication::style()->standardPalette());
        const QString tag = QString::fromLatin1(QTest::currentDataTag());
        QSettings().clear();
        ui::MainWindow w(m_tmp.filePath(tag + ".db"));
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* train = w.findChild<QAction*>("action-train");
        QTRY_VERIFY_WITH_TIMEOUT(train->isEnabled(), 60000);
        save(w, "first-launch-" + tag);

        w.setup().setConfig(showcaseRun(m_tmp.filePath("ckpt")));
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  60000);
        QVERIFY(w.train());
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Idle, 300000);
        save(w, "trained-" + tag);
        auto* tabs = w.findChild<QTabWidget*>("views");
        tabs->setCurrentIndex(1);
        save(w, "hardware-" + tag);
        tabs->setCurrentIndex(0);

        auto* lr = w.findChild<QLineEdit*>("lr");
        lr->selectAll();
        QTest::keyClicks(lr, "-0.1");
        save(w, "invalid-field-" + tag);
        lr->selectAll();
        QTest::keyClicks(lr, "0.05");

        RunConfig oom = test::outOfMemoryRunConfig(m_tmp.filePath("ckpt"));
        w.setup().setConfig(oom);
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  60000);
        QVERIFY(w.train());
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Idle, 300000);
        QVERIFY(w.findChild<ui::FailureBanner*>("failure-banner")->isVisible());
        save(w, "out-of-memory-" + tag);

        auto* help = w.findChild<QToolButton*>("precision-help");
        QVERIFY(help);
        help->click();
        QDialog* card = nullptr;
        QTRY_VERIFY((card = w.findChild<QDialog*>("concept-precision")) != nullptr);
        QVERIFY(QTest::qWaitForWindowExposed(card));
        save(*card, "concept-card-" + tag);
        card->close();
    }
};

QTEST_MAIN(WindowShots)
#include "windowshots.moc"

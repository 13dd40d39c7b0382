// The whole window, as a user drives it: the first launch is ready to train, Ctrl+Return trains
// a run to completion with live charts, pause/resume/stop work from the actions, an out-of-memory
// run offers its retry, and the last configuration is remembered.
#include "charts/losschart.h"
#include "charts/validationchart.h"
#include "mainwindow.h"
#include "runcontroller.h"
#include "setup/setuppanel.h"
#include "status/elidedlabel.h"
#include "status/failurebanner.h"
#include "store/runstore.h"
#include "store/sqlitedb.h"
#include "support/testdata.h"
#include "uitestutil.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

using namespace tb;
using tb::ui::MainWindow;
using State = tb::ui::RunController::State;

class TestWindow : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString db() const { return m_dir.filePath("runs.db"); }
    QString log(MainWindow& w) const { return w.findChild<QTextBrowser*>("log")->toPlainText(); }

private slots:
    void initTestCase() {
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath("settings"));
        QCoreApplication::setOrganizationName("TrainBenchTest");
        QCoreApplication::setApplicationName("tst_window");
    }
    void init() { QSettings().clear(); }

    void firstLaunchIsReadyToTrain() {
        if (const std::string why = test::fashionMnistMissing(); !why.empty())
            QSKIP(why.c_str());
        MainWindow w(db());
        w.show();
        auto* train = w.findChild<QAction*>("action-train");
        QTRY_VERIFY_WITH_TIMEOUT(train->isEnabled(), 30000);
        QVERIFY(!w.findChild<QAction*>("action-pause")->isEnabled());
        QVERIFY(!w.findChild<QAction*>("action-stop")->isEnabled());
        QCOMPARE(w.setup().config().model, std::string("fmnist-cnn"));
        QCOMPARE(w.setup().config().data.name, std::string("fashion-mnist"));
        QVERIFY(w.findChild<ui::ElidedLabel*>("train-blocker")->fullText().isEmpty());
    }

    void ctrlReturnTrainsARunToCompletion() {
        MainWindow w(db());
        w.show();
        w.setup().setConfig(test::tinyRunConfig(m_dir.filePath("ckpt")));
        auto* train = w.findChild<QAction*>("action-train");
        QTRY_VERIFY_WITH_TIMEOUT(train->isEnabled(), 30000);
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTest::keyClick(&w, Qt::Key_Return, Qt::ControlModifier);
        QCOMPARE(w.controller().state(), State::Running);
        QVERIFY(!train->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Idle, 120000);
        QVERIFY2(log(w).contains("run completed"), qPrintable(log(w)));
        QVERIFY(train->isEnabled()); // the window is ready for the next run
        // The charts got every logged step and both epochs.
        auto* loss = w.findChild<ui::LossChart*>();
        QVERIFY(loss);
        QCOMPARE(loss->rawGraph()->dataCount(), 22);
        QCOMPARE(loss->smoothedGraph()->dataCount(), 22);
        auto* validation = w.findChild<ui::ValidationChart*>();
        QVERIFY(validation);
        QVERIFY(validation->exportCsv(m_dir.filePath("validation.csv")));
        QFile csv(m_dir.filePath("validation.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QCOMPARE(csv.readAll().trimmed().split('\n').size(), 3); // header and two epochs

        RunStoreOptions ro;
        ro.readOnly = true;
        RunStore store(db().toStdString(), ro);
        const auto runs = store.listRuns();
        QVERIFY(!runs.empty());
        QCOMPARE(toString(runs.front().status), std::string("completed"));
        QCOMPARE(store.stepMetrics(runs.front().id).size(), std::size_t{22});
    }

    // Another program holds the store's write lock while a run trains: the status bar says the
    // run waits to be recorded until the lock goes, then every step lands.
    void aLockedStoreIsShownUntilTheRunIsRecorded() {
        QTemporaryDir dir;
        const QString path = dir.filePath("runs.db");
        { RunStore create(path.toStdString()); }
        MainWindow w(path);
        w.show();
        w.setup().setConfig(test::tinyRunConfig(dir.filePath("ckpt")));
        QTRY_VERIFY_WITH_TIMEOUT(w.findChild<QAction*>("action-train")->isEnabled(), 30000);
        auto holder =
            std::make_unique<SqliteDb>(path.toStdString(), false, std::chrono::milliseconds(0));
        holder->exec("BEGIN EXCLUSIVE");
        QVERIFY(w.train());
        auto* recording = w.findChild<QLabel*>("recording-status");
        QTRY_VERIFY_WITH_TIMEOUT(!recording->isHidden(), 60000);
        QVERIFY2(recording->text().contains("waits to be recorded"), qPrintable(recording->text()));
        QVERIFY2(recording->toolTip().contains(path), qPrintable(recording->toolTip()));
        // The banner above the charts says what it means for the run: held and retried.
        auto* banner = w.findChild<ui::FailureBanner*>("failure-banner");
        QCOMPARE(banner->showing(), QString("recording-waiting"));
        const QString held = banner->findChild<QLabel*>("failure-text")->text();
        QVERIFY2(held.contains("held in memory") && held.contains(path), qPrintable(held));
        holder->exec("ROLLBACK");
        holder.reset();
        QTRY_VERIFY_WITH_TIMEOUT(recording->isHidden(), 60000);
        QTRY_COMPARE(banner->showing(), QString("recording-recorded"));
        RunStore store(path.toStdString());
        const auto runs = store.listRuns();
        QCOMPARE(runs.size(), std::size_t{1});
        QCOMPARE(store.stepMetrics(runs.front().id).size(), std::size_t{22});
    }

    void pauseResumeAndStopFromTheActions() {
        MainWindow w(db());
        w.show();
        w.setup().setConfig(test::tinyRunConfig(m_dir.filePath("ckpt"), 50));
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  30000);
        QVERIFY(w.train());
        auto* pause = w.findChild<QAction*>("action-pause");
        QTRY_VERIFY(log(w).contains("run "));
        pause->trigger();
        QCOMPARE(w.controller().state(), State::Paused);
        QCOMPARE(pause->text(), QString("&Resume"));
        QTRY_VERIFY_WITH_TIMEOUT(log(w).contains("paused after step"), 60000);
        pause->trigger();
        QCOMPARE(w.controller().state(), State::Running);
        QTRY_VERIFY_WITH_TIMEOUT(log(w).contains("resumed at step"), 60000);
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTest::keyClick(&w, Qt::Key_Escape);
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Idle, 60000);
        QVERIFY2(log(w).contains("run stopped"), qPrintable(log(w)));
    }

    // A batch no machine holds: the run fails as out of memory, the banner offers half the batch
    // and twice the accumulation, and one click applies them and trains again.
    void outOfMemoryOffersTheRetry() {
        MainWindow w(db());
        w.show();
        const RunConfig c = test::outOfMemoryRunConfig(m_dir.filePath("ckpt"));
        w.setup().setConfig(c);
        QSignalSpy started(&w.controller(), &ui::RunController::runStarted);
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  30000);
        QVERIFY(w.train());
        auto* banner = w.findChild<ui::FailureBanner*>("failure-banner");
        QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), 120000);
        if (banner->failure().kind != FailureKind::OutOfMemory)
            QFAIL(qPrintable(w.findChild<QLabel*>("failure-text")->text()));
        auto* retry = w.findChild<QPushButton*>("failure-retry");
        QVERIFY(retry->isVisible());
        QCOMPARE(retry->text(), QString("Retry with batch_size=32768, accumulate_grad_batches=2"));
        QTRY_COMPARE(w.controller().state(), State::Idle);
        QTest::mouseClick(retry, Qt::LeftButton);
        QCOMPARE(w.setup().config().batchSize, int64_t{32768});
        QCOMPARE(w.setup().config().accumulateGradBatches, 2);
        QTRY_COMPARE_WITH_TIMEOUT(started.count(), 2, 30000);
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Idle, 120000);
    }

    // A run that fails on a key the form could not check alone (a folder that cannot be
    // created) names it, and the window puts the cursor in that field.
    void failureNamingAKeyFocusesItsField() {
        MainWindow w(db());
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        RunConfig c = test::tinyRunConfig("/proc/no-such-folder/ckpt", 1);
        w.setup().setConfig(c);
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  30000);
        QVERIFY(w.train());
        auto* banner = w.findChild<ui::FailureBanner*>("failure-banner");
        QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), 60000);
        QVERIFY(banner->failure().kind == FailureKind::Config);
        QCOMPARE(banner->failure().subject, std::string("checkpoint_dir"));
        QTRY_COMPARE(QApplication::focusWidget(), w.setup().editorOf("checkpoint_dir"));
        QVERIFY(!w.findChild<QPushButton*>("failure-retry")->isVisible());
    }

    void invalidValueDisablesTrainWithTheReason() {
        MainWindow w(db());
        w.show();
        w.setup().setConfig(test::tinyRunConfig(m_dir.filePath("ckpt")));
        auto* train = w.findChild<QAction*>("action-train");
        QTRY_VERIFY_WITH_TIMEOUT(train->isEnabled(), 30000);
        auto* lr = w.findChild<QLineEdit*>("lr");
        lr->selectAll();
        QTest::keyClicks(lr, "-1");
        QVERIFY(!train->isEnabled());
        QVERIFY2(w.findChild<ui::ElidedLabel*>("train-blocker")->fullText().startsWith("lr:"),
                 qPrintable(w.findChild<ui::ElidedLabel*>("train-blocker")->fullText()));
        QVERIFY(!w.train());
    }

    void remembersTheLastConfiguration() {
        {
            MainWindow w(db());
            w.show();
            auto* batch = w.findChild<QLineEdit*>("batch_size");
            batch->selectAll();
            QTest::keyClicks(batch, "48");
            w.close();
        }
        MainWindow again(db());
        QCOMPARE(again.findChild<QLineEdit*>("batch_size")->text(), QString("48"));
        QCOMPARE(again.setup().config().batchSize, int64_t{48});
    }
};

QTEST_MAIN(TestWindow)
#include "tst_window.moc"

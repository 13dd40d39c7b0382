// Sweeps in the window: Run > Sweep... builds a sweep of the set-up (its trial count, or the
// problem naming the key, shown as it is edited; Start waits for a valid sweep); a started
// sweep fills the Sweep tab (trials, counts, the best so far) and ends with its runs selected
// in the Runs tab under its tag; Stop in the Sweep tab ends the trial in progress.
#include "mainwindow.h"
#include "runs/runsview.h"
#include "setup/setuppanel.h"
#include "sweeps/sweepcontroller.h"
#include "sweeps/sweepdialog.h"
#include "sweeps/sweeppanel.h"
#include "uitestutil.h"

#include <QAction>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb;
using tb::ui::MainWindow;
using tb::ui::SweepDialog;

class TestSweeps : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase() {
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath("settings"));
        QCoreApplication::setOrganizationName("TrainBenchTest");
        QCoreApplication::setApplicationName("tst_sweeps");
    }

    void theDialogChecksAsItIsEdited() {
        SweepDialog dialog(test::tinyRunConfig(m_dir.filePath("ckpt")));
        // Its start: lr on a log range of 3 points, batch_size listed twice: 6 trials.
        QCOMPARE(dialog.parameterCount(), 2);
        QVERIFY2(dialog.preview()->text().startsWith("6 trials"),
                 qPrintable(dialog.preview()->text()));
        QVERIFY(dialog.startButton()->isEnabled());
        dialog.addParameter("batch_size", "32, -4"); // the same key twice: the last row wins
        QVERIFY(!dialog.startButton()->isEnabled());
        QVERIFY2(dialog.problem().startsWith("sweep: parameters.batch_size.values[1]"),
                 qPrintable(dialog.problem()));
        QCOMPARE(dialog.preview()->text(), dialog.problem());
        dialog.removeParameter(2);
        QVERIFY(dialog.startButton()->isEnabled());
        dialog.setMethod(SweepMethod::Random);
        dialog.setCount(5);
        QVERIFY2(dialog.preview()->text().startsWith("5 trials"),
                 qPrintable(dialog.preview()->text()));
        dialog.setMethod(SweepMethod::Halving);
        dialog.setCount(0); // halving over the grid's trials
        dialog.setBudget(true, 1, 9, 3);
        dialog.setMetric("samples_per_s");
        QVERIFY2(dialog.problem().startsWith("sweep: metric"), qPrintable(dialog.problem()));
        dialog.setMetric("final_val_loss");
        QVERIFY2(dialog.preview()->text().contains("judged after 1, 3 epochs"),
                 qPrintable(dialog.preview()->text()));
        const std::optional<SweepDefinition> sweep = dialog.definition();
        QVERIFY(sweep);
        QVERIFY(!sweep->metric.maximize); // the goal followed the metric
        QCOMPARE(sweepTrials(*sweep).size(), std::size_t{6});
        QCOMPARE(trialConfig(*sweep, sweepTrials(*sweep)[0]).maxEpochs, int64_t{9});
    }

    void aSweepRunsAndEndsComparedInTheRunsTab() {
        MainWindow w(m_dir.filePath("runs.db"));
        w.show();
        w.setup().setConfig(test::tinyRunConfig(m_dir.filePath("ckpt"), 1));
        auto* action = w.findChild<QAction*>("action-sweep");
        QVERIFY(action);
        QTRY_VERIFY_WITH_TIMEOUT(action->isEnabled(), 30000);
        SweepDialog* dialog = w.showSweepDialog();
        dialog->setName("window-grid");
        dialog->removeParameter(1); // lr only: 3 trials
        dialog->setParallel(2);
        QVERIFY(dialog->startButton()->isEnabled());
        dialog->startButton()->click();
        QVERIFY(w.sweeps().running());
        QVERIFY(!w.findChild<QAction*>("action-train")->isEnabled()); // one thing trains
        QVERIFY(w.findChild<QAction*>("action-stop")->isEnabled());
        ui::SweepPanel& panel = w.sweepPanel();
        QCOMPARE(panel.trials()->rowCount(), 3);
        QTRY_VERIFY_WITH_TIMEOUT(!w.sweeps().running(), 180000);
        QVERIFY2(panel.countsText().startsWith("3 done, 0 training, 0 stopped early, 0 failed"),
                 qPrintable(panel.countsText()));
        QVERIFY2(panel.bestText().startsWith("Best so far: trial"), qPrintable(panel.bestText()));
        QCOMPARE(panel.runIds().size(), 3);
        QTRY_COMPARE_WITH_TIMEOUT(w.runs().selectedRunIds().size(), 3, 30000);
        for (const QString& id : panel.runIds())
            QVERIFY(w.runs().selectedRunIds().contains(id));
        QTRY_VERIFY(w.findChild<QAction*>("action-train")->isEnabled());
    }

    void stopEndsTheTrialInProgress() {
        MainWindow w(m_dir.filePath("runs.db"));
        w.show();
        RunConfig slow = test::tinyRunConfig(m_dir.filePath("ckpt"), 200);
        w.setup().setConfig(slow);
        QTRY_VERIFY_WITH_TIMEOUT(w.findChild<QAction*>("action-sweep")->isEnabled(), 30000);
        SweepDialog* dialog = w.showSweepDialog();
        dialog->setName("window-stop");
        dialog->startButton()->click();
        ui::SweepPanel& panel = w.sweepPanel();
        QTRY_VERIFY_WITH_TIMEOUT(panel.countsText().contains("1 training"), 60000);
        panel.stopButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!w.sweeps().running(), 120000);
        QVERIFY2(panel.countsText().contains("stopped; start the same sweep again"),
                 qPrintable(panel.countsText()));
        QVERIFY(!panel.stopButton()->isEnabled());
    }
};

QTEST_MAIN(TestSweeps)
#include "tst_sweeps.moc"

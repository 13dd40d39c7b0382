// The Profile tab: "Profile 20 Steps" is offered while a run trains here; pressed, the run's
// next steps are profiled and drawn (a point per layer and pass on the roofline, a table row
// each, the advice); the profile is recorded with the run and shown again when the run is
// opened later; hovering a point finds its layer. Once the run has finished the button profiles
// it again from its checkpoint, and "Compare with" sets the two profiles side by side.
#include "mainwindow.h"
#include "profile/checkpointprofiler.h"
#include "profile/profilecomparisontable.h"
#include "profile/profilepanel.h"
#include "profile/profiletable.h"
#include "profile/rooflinechart.h"
#include "runcontroller.h"
#include "setup/setuppanel.h"
#include "store/runstore.h"
#include "uitestutil.h"

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

using namespace tb;
using namespace tb::ui;
using State = RunController::State;

class TestProfilePanel : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;

private slots:
    void initTestCase() { qputenv("XDG_DATA_HOME", m_tmp.filePath("data").toUtf8()); }

    void aProfileOfTheRunTrainingNowIsDrawnAndKept() {
        const QString db = m_tmp.filePath("runs.db");
        MainWindow w(db);
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        ProfilePanel& panel = w.profile();
        QPushButton* button = panel.profileButton();
        QVERIFY(!button->isEnabled()); // nothing trains

        // Paused after its first step, so the profile's steps are still to come.
        RunConfig config = test::tinyRunConfig(m_tmp.filePath("ckpt"), 4);
        bool paused = false;
        connect(&w.controller(), &RunController::stepsArrived, this, [&] {
            if (!paused) {
                paused = true;
                w.controller().pause();
            }
        });
        w.setup().setConfig(config);
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  60000);
        QVERIFY(w.train());
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Paused, 60000);
        w.showTab(&panel);
        QVERIFY(button->isEnabled());
        QTest::mouseClick(button, Qt::LeftButton);
        QVERIFY(!button->isEnabled()); // one profile at a time
        w.controller().resume();
        QTRY_VERIFY_WITH_TIMEOUT(panel.report().has_value(), 120000);

        const ProfileReport report = *panel.report();
        QVERIFY(report.steps > 0);
        int drawable = 0;
        for (const LayerProfile& row : report.rows)
            drawable += row.flops > 0 && row.bytes > 0 && row.gflops > 0 ? 1 : 0;
        QVERIFY(drawable > 0);
        QCOMPARE(panel.chart()->pointCount(), drawable);
        const int extra = report.dataWaitMs > 0.0 ? 2 : 1; // the loader's wait, "other"
        QCOMPARE(panel.table()->rowCount(), static_cast<int>(report.rows.size()) + extra);
        QVERIFY(panel.findChild<QLabel*>("profile-status")->text().contains("fmnist-cnn"));
        QVERIFY(panel.findChild<QLabel*>("profile-summary")->text().contains("-bound layers"));

        // Hovering a point finds its row.
        panel.chart()->plot()->replot();
        for (std::size_t i = 0; i < report.rows.size(); ++i) {
            const LayerProfile& row = report.rows[i];
            if (!(row.flops > 0 && row.bytes > 0 && row.gflops > 0))
                continue;
            const QPointF at(panel.chart()->plot()->xAxis->coordToPixel(row.intensity),
                             panel.chart()->plot()->yAxis->coordToPixel(row.gflops));
            const auto [which, found] = panel.chart()->rowAt(at);
            QCOMPARE(which, 0);
            QVERIFY(found >= 0);
            const LayerProfile& hit = report.rows[static_cast<std::size_t>(found)];
            QCOMPARE(hit.intensity, row.intensity); // the same point, or one drawn over it
            QCOMPARE(hit.gflops, row.gflops);
            break;
        }

        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Idle, 120000);
        // Recorded with the run, and shown again when the run is opened later.
        const QString runId = w.chartRunId();
        QCOMPARE(RunStore(db.toStdString()).profiles(runId.toStdString()).size(), std::size_t{1});
        panel.showStoredRun(QStringLiteral("no-such-run"));
        QVERIFY(!panel.report().has_value());
        QCOMPARE(panel.table()->rowCount(), 0);
        QVERIFY(!button->isEnabled()); // no run trains, none with a checkpoint is shown
        const RunRecord record = RunStore(db.toStdString()).getRun(runId.toStdString());
        panel.showStoredRun(runId, QString::fromStdString(record.checkpoint));
        QVERIFY(panel.report().has_value());
        QCOMPARE(panel.report()->stepMs, report.stepMs);

        // The finished run profiled again from its checkpoint: a second profile, kept.
        QVERIFY(button->isEnabled());
        QTest::mouseClick(button, Qt::LeftButton);
        QVERIFY(!button->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(panel.report()->stepMs != report.stepMs, 120000);
        QTRY_VERIFY(button->isEnabled());
        QCOMPARE(panel.report()->firstStep, int64_t{CheckpointProfiler::kWarmupSteps});
        QCOMPARE(RunStore(db.toStdString()).profiles(runId.toStdString()).size(), std::size_t{2});

        // Compared with the first: hollow points, the table of changes, what changed.
        QComboBox* compare = panel.compareBox();
        QCOMPARE(compare->count(), 3); // nothing, and the run's two profiles
        QVERIFY(!panel.comparison().has_value());
        const int first =
            compare->findText(QStringLiteral("this run, profile 1"), Qt::MatchStartsWith);
        QVERIFY(first > 0);
        compare->setCurrentIndex(first);
        QVERIFY(panel.comparison().has_value());
        QCOMPARE(panel.comparison()->stepMs, report.stepMs);
        QVERIFY(panel.comparisonTable()->isVisible());
        QVERIFY(!panel.table()->isVisible());
        QCOMPARE(panel.chart()->comparisonPointCount(), drawable);
        QVERIFY(panel.comparisonTable()->rowCount() >= static_cast<int>(report.rows.size()));
        QVERIFY(panel.findChild<QLabel*>("profile-summary")->text().contains("B is this one"));
        compare->setCurrentIndex(0);
        QVERIFY(!panel.comparison().has_value());
        QVERIFY(panel.table()->isVisible());
        QCOMPARE(panel.chart()->comparisonPointCount(), 0);
    }
};

QTEST_MAIN(TestProfilePanel)
#include "tst_profilepanel.moc"

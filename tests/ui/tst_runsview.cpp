// The Runs tab: the table lists, sorts and filters a store the test writes; runs another
// process writes appear live; the selection is compared (every point, the config keys that
// differ, group means and bands worked out by hand); delete asks and removes rows and
// checkpoints; a run opens into the training charts as drawn live; and bad stores (newer,
// foreign) and runs that cannot be opened say why.
#include "charts/chartspanel.h"
#include "charts/losschart.h"
#include "experiments/experimentcontroller.h"
#include "mainwindow.h"
#include "runcontroller.h"
#include "runs/comparison.h"
#include "runs/comparisonplot.h"
#include "runs/comparisonview.h"
#include "runs/parallelcoordinates.h"
#include "runs/parametersplot.h"
#include "runs/runsfilterproxy.h"
#include "runs/runsstore.h"
#include "runs/runstablemodel.h"
#include "runs/runsview.h"
#include "setup/setuppanel.h"
#include "store/schema.h"
#include "store/sqlitedb.h"
#include "support/buildtree.h"
#include "support/storedruns.h"
#include "uitestutil.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QFile>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>
#include <qcustomplot.h>

#include <cmath>

using namespace tb;
using namespace tb::ui;

namespace {

// Three runs: "a" and "b" with lr 0.1 (losses 2/i and 4/i, tagged "sweep"), "c" with lr 0.2.
void writeThreeRuns(const QString& path) {
    RunStore store(path.toStdString());
    test::StoredRun a = test::storedRun("20261201-100000-aaaaaaaaaaaa", "alpha");
    a.config = {{"lr", 0.1}, {"seed", 1}};
    a.tags = {"sweep"};
    a.valAcc = {0.5, 0.8};
    test::StoredRun b = a;
    b.id = "20261201-100100-bbbbbbbbbbbb";
    b.name = "beta";
    b.config = {{"lr", 0.1}, {"seed", 2}};
    b.lossScale = 2.0;
    b.valAcc = {0.6, 0.9};
    b.startedAt += 100;
    test::StoredRun c = test::storedRun("20261201-100200-cccccccccccc", "gamma");
    c.config = {{"lr", 0.2},
                {"seed", 1},
                {"ranks", 2},
                {"batch_size", 32},
                {"accumulate_grad_batches", 2}}; // a data-parallel job
    c.model = "mlp";
    c.lossScale = 1.5;
    c.valAcc = {0.4, 0.7};
    c.startedAt += 200;
    c.status = RunStatus::Stopped;
    for (const auto* r : {&a, &b, &c})
        test::writeStoredRun(store, *r);
}

QStringList shownIds(RunsView& view) {
    QStringList ids;
    for (int row = 0; row < view.proxy()->rowCount(); ++row)
        ids << view.proxy()->index(row, 0).data(RunsTableModel::RunIdRole).toString();
    return ids;
}

} // namespace

class TestRunsView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath("settings"));
        // Experiments write their image files under the data folder: keep them in the test's.
        qputenv("XDG_DATA_HOME", m_dir.filePath("data").toLocal8Bit());
    }

    void listsSortsAndFilters() {
        QTemporaryDir dir;
        const QString db = dir.filePath("runs.db");
        writeThreeRuns(db);
        RunsStore store(db);
        RunsView view(store);
        QAbstractItemModelTester modelTester(view.model());
        QAbstractItemModelTester proxyTester(view.proxy());
        QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 3, 10000);
        // Newest first by default.
        QCOMPARE(shownIds(view).first(), QString("20261201-100200-cccccccccccc"));
        view.table()->sortByColumn(RunsTableModel::BestValAcc, Qt::DescendingOrder);
        QCOMPARE(shownIds(view).first(), QString("20261201-100100-bbbbbbbbbbbb")); // 90%
        QCOMPARE(view.proxy()->index(0, RunsTableModel::BestValAcc).data().toString(),
                 QString("90.00% (epoch 2)"));
        view.table()->sortByColumn(RunsTableModel::FinalTrainLoss, Qt::AscendingOrder);
        QCOMPARE(shownIds(view).first(), QString("20261201-100000-aaaaaaaaaaaa")); // 0.1
        // The job's ranks, and its effective batch: 2 ranks x 32 x 2 micro-batches.
        view.table()->sortByColumn(RunsTableModel::Ranks, Qt::DescendingOrder);
        QCOMPARE(shownIds(view).first(), QString("20261201-100200-cccccccccccc"));
        QCOMPARE(view.proxy()->index(0, RunsTableModel::Ranks).data().toString(), QString("2"));
        QCOMPARE(view.proxy()->index(0, RunsTableModel::EffectiveBatch).data().toString(),
                 QString("128"));

        view.proxy()->setText("gam");
        QCOMPARE(shownIds(view), QStringList{"20261201-100200-cccccccccccc"});
        view.proxy()->setText("");
        view.proxy()->setStatus("completed");
        QCOMPARE(view.proxy()->rowCount(), 2);
        view.proxy()->setStatus("");
        view.proxy()->setTag("sweep");
        QCOMPARE(view.proxy()->rowCount(), 2);
        view.proxy()->setTag("");
        view.proxy()->setModel("mlp");
        QCOMPARE(view.proxy()->rowCount(), 1);
    }

    // Another process trains into the same store: its run appears while it trains, without the
    // table being reloaded (the rows already there keep their selection), and ends completed.
    void aRunWrittenByTheCliAppearsLive() {
        QTemporaryDir dir;
        const QString db = dir.filePath("runs.db");
        writeThreeRuns(db);
        RunsStore store(db);
        RunsView view(store);
        QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 3, 10000);
        view.selectRuns({"20261201-100000-aaaaaaaaaaaa"});
        QSignalSpy removed(view.model(), &QAbstractItemModel::rowsRemoved);
        QSignalSpy reset(view.model(), &QAbstractItemModel::modelReset);
        QProcess cli;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_DATA_HOME", dir.path());
        cli.setProcessEnvironment(env);
        cli.start(test::cliPath(), {"train", "--quiet", "--db", db, "--set", "dataset=shapes",
                                    "--set", "data.image_size=16", "--set", "model=fmnist-cnn",
                                    "--set", "max_epochs=3", "--set", "device=cpu"});
        QVERIFY(cli.waitForStarted());
        QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 4, 60000);
        QVERIFY(cli.state() == QProcess::NotRunning || cli.waitForFinished(120000));
        QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
        QCOMPARE(cli.exitCode(), 0);
        const auto newest = [&] {
            for (int row = 0; row < view.model()->rowCount(); ++row)
                if (view.model()->runAt(row).name != "alpha" &&
                    view.model()->runAt(row).name != "beta" &&
                    view.model()->runAt(row).name != "gamma")
                    return view.model()->runAt(row).status;
            return RunStatus::Failed;
        };
        QTRY_VERIFY_WITH_TIMEOUT(newest() == RunStatus::Completed, 10000);
        QCOMPARE(removed.count(), 0);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(view.selectedRunIds(), QStringList{"20261201-100000-aaaaaaaaaaaa"});
    }

    void comparesTheSelection() {
        QTemporaryDir dir;
        const QString db = dir.filePath("runs.db");
        writeThreeRuns(db);
        RunsStore store(db);
        RunsView view(store);
        QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 3, 10000);
        const QString a = "20261201-100000-aaaaaaaaaaaa", c = "20261201-100200-cccccccccccc";
        view.selectRuns({a, c});
        QTRY_VERIFY_WITH_TIMEOUT(view.comparison()->complete() && view.comparisonView()->upToDate(),
                                 10000);
        ComparisonView* cv = view.comparisonView();
        cv->setSmoothing(0.0);
        cv->setSeries("train/loss");
        ComparisonPlot* plot = cv->plot();
        QCOMPARE(plot->lines().size(), std::size_t{2});
        QCOMPARE(plot->mainGraph(a)->dataCount(), 20); // every recorded point
        QCOMPARE(plot->mainGraph(a)->data()->at(4)->value, 2.0 / 5);
        QCOMPARE(plot->mainGraph(c)->data()->at(4)->value, 3.0 / 5);
        // Distinct colours, and each stored with its run.
        QVERIFY(cv->colorOf(a) != cv->colorOf(c));
        QTRY_VERIFY_WITH_TIMEOUT(!view.model()->run(a)->color.empty(), 10000);
        QCOMPARE(QColor(QString::fromStdString(view.model()->run(a)->color)), cv->colorOf(a));
        // A hidden line (a click on its legend entry) stays hidden as the view rebuilds.
        plot->setLineVisible(c, false);
        QVERIFY(!plot->mainGraph(c)->visible());
        cv->setSeries("val/acc");
        QVERIFY(!plot->mainGraph(c)->visible());
        plot->setLineVisible(c, true);

        // The config diff: only the keys that differ.
        QTableWidget* diff = cv->configDiff();
        QStringList keys;
        for (int row = 0; row < diff->rowCount(); ++row)
            keys << diff->item(row, 0)->text();
        keys.sort();
        QCOMPARE(keys,
                 (QStringList{"accumulate_grad_batches", "batch_size", "lr", "model", "ranks"}));
        // The summary: a's validation accuracy reaches 65% halfway between epochs 1 and 2.
        cv->setTargetAccuracy(65.0);
        QTableWidget* summary = cv->summary();
        const int stepColumn = RunsTableModel::ColumnCount;
        for (int row = 0; row < summary->rowCount(); ++row)
            if (summary->item(row, RunsTableModel::Name)->text() == "alpha")
                QCOMPARE(summary->item(row, stepColumn)->text(), QString("15"));
    }

    // Grouped by lr: lr=0.1 is a and b, whose losses at step i are 2/i and 4/i: the mean 3/i,
    // the min-max band 2/i..4/i, the std band 3/i -+ 1/i; lr=0.2 is c alone.
    void groupsByAKeyWithMeanAndBand() {
        QTemporaryDir dir;
        const QString db = dir.filePath("runs.db");
        writeThreeRuns(db);
        RunsStore store(db);
        RunsView view(store);
        QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 3, 10000);
        view.selectRuns({"20261201-100000-aaaaaaaaaaaa", "20261201-100100-bbbbbbbbbbbb",
                         "20261201-100200-cccccccccccc"});
        QTRY_VERIFY_WITH_TIMEOUT(view.comparison()->complete() && view.comparisonView()->upToDate(),
                                 10000);
        ComparisonView* cv = view.comparisonView();
        cv->setSmoothing(0.0);
        cv->setSeries("train/loss");
        cv->setGroupBy("lr");
        // Groups come in selection order; find each by its label.
        const auto lineLabelled = [cv](const QString& label) -> const ComparisonLine* {
            for (const ComparisonLine& line : cv->plot()->lines())
                if (line.label == label)
                    return &line;
            return nullptr;
        };
        QCOMPARE(cv->plot()->lines().size(), std::size_t{2});
        const ComparisonLine* both = lineLabelled("lr=0.1 (n=2)");
        QVERIFY(both);
        for (std::size_t k = 0; k < 20; ++k) {
            const double i = static_cast<double>(k + 1);
            QVERIFY(std::abs(both->points.y[k] - 3.0 / i) < 1e-12);
            QVERIFY(std::abs(both->bandLow[k] - 2.0 / i) < 1e-12);
            QVERIFY(std::abs(both->bandHigh[k] - 4.0 / i) < 1e-12);
        }
        QVERIFY(lineLabelled("lr=0.2 (n=1)"));
        cv->setBandIsStd(true);
        QVERIFY(std::abs(lineLabelled("lr=0.1 (n=2)")->bandLow[0] - 2.0) < 1e-12); // 3 - 1
    }

    // The parameters view places a run by a config key against a summary value.
    void parametersViewPlacesEachRun() {
        QTemporaryDir dir;
        const QString db = dir.filePath("runs.db");
        writeThreeRuns(db);
        RunsStore store(db);
        RunsView view(store);
        QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 3, 10000);
        view.selectRuns({"20261201-100000-aaaaaaaaaaaa", "20261201-100200-cccccccccccc"});
        QTRY_VERIFY_WITH_TIMEOUT(view.comparison()->complete() && view.comparisonView()->upToDate(),
                                 10000);
        auto* params = view.comparisonView()->parameters();
        QVERIFY(params->keys().contains("lr"));
        params->setKeys("lr", "best_val_acc");
        QCOMPARE(*params->pointOf("20261201-100000-aaaaaaaaaaaa"), QPointF(0.1, 80.0));
        QCOMPARE(*params->pointOf("20261201-100200-cccccccccccc"), QPointF(0.2, 70.0));
    }

    // The parallel coordinates draw the runs the table shows (its filter applied); a range
    // brushed there selects those runs in the table, and so compares them.
    void brushingParallelCoordinatesSelectsRuns() {
        QTemporaryDir dir;
        const QString db = dir.filePath("runs.db");
        writeThreeRuns(db);
        RunsStore store(db);
        RunsView view(store);
        QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 3, 10000);
        auto* parallel = view.comparisonView()->parallelCoordinates();
        QTRY_VERIFY_WITH_TIMEOUT(parallel->fractionOf("20261201-100200-cccccccccccc", "lr"), 10000);
        QVERIFY(view.comparisonView()->tabs()->isVisibleTo(&view)); // shown before a selection
        parallel->setBrush("lr", 0.9, 1.0); // lr 0.2, the top of the axis: gamma alone
        QCOMPARE(view.selectedRunIds(), QStringList{"20261201-100200-cccccccccccc"});
        QTRY_VERIFY_WITH_TIMEOUT(view.comparison()->complete(), 10000);
        QCOMPARE(view.comparison()->runIds(), QStringList{"20261201-100200-cccccccccccc"});
        parallel->setBrush("lr", 0.0, 0.1);
        QCOMPARE(view.selectedRunIds().size(), 2);
        parallel->clearBrushes();
        QCOMPARE(view.selectedRunIds().size(), 3);
        // Filtered to the "sweep" tag: alpha and beta, whose lr is the same: not an axis.
        view.proxy()->setTag("sweep");
        QTRY_VERIFY_WITH_TIMEOUT(!parallel->fractionOf("20261201-100200-cccccccccccc", "seed"),
                                 10000);
        QVERIFY(parallel->fractionOf("20261201-100000-aaaaaaaaaaaa", "seed"));
        QVERIFY(!parallel->fractionOf("20261201-100000-aaaaaaaaaaaa", "lr"));
    }

    void deleteAsksAndRemovesRowsAndCheckpoints() {
        QTemporaryDir dir;
        const QString db = dir.filePath("runs.db");
        const QString id = "20261201-110000-dddddddddddd";
        const QString folder = dir.filePath("checkpoints/" + id);
        QVERIFY(QDir().mkpath(folder));
        QFile ckpt(folder + "/epoch-0002.safetensors");
        QVERIFY(ckpt.open(QIODevice::WriteOnly));
        ckpt.write(QByteArray(4096, 'x'));
        ckpt.close();
        {
            RunStore store(db.toStdString());
            test::StoredRun r = test::storedRun(id.toStdString(), "doomed");
            r.checkpoint = ckpt.fileName().toStdString();
            test::writeStoredRun(store, r);
        }
        RunsStore store(db);
        RunsView view(store);
        QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 1, 10000);
        view.selectRuns({id});
        const QString question = view.deleteQuestion();
        QVERIFY2(question.contains("20 logged steps") && question.contains("checkpoints (4.0 KiB)"),
                 qPrintable(question));
        // First declined: nothing goes.
        QTimer::singleShot(0, this, [] {
            QTRY_VERIFY(QApplication::activeModalWidget());
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            QVERIFY(box && box->objectName() == "confirm-delete");
            box->button(QMessageBox::Cancel)->click();
        });
        view.findChild<QPushButton*>("runs-delete")->click(); // returns once the box is closed
        QCOMPARE(view.model()->rowCount(), 1);
        QVERIFY(QFile::exists(ckpt.fileName()));
        // Then accepted.
        QTimer::singleShot(0, this, [] {
            QTRY_VERIFY(QApplication::activeModalWidget());
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            for (QAbstractButton* b : box->buttons())
                if (box->buttonRole(b) == QMessageBox::DestructiveRole)
                    b->click();
        });
        view.findChild<QPushButton*>("runs-delete")->click();
        QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 0, 10000);
        QVERIFY(!QFile::exists(folder));
        RunStore check(db.toStdString());
        QVERIFY(check.listRuns().empty());
        QVERIFY(check.stepMetrics(id.toStdString()).empty());
    }

    // A run deleted by another program while it is compared leaves the comparison, saying so.
    void aRunDeletedElsewhereClosesWithAMessage() {
        QTemporaryDir dir;
        const QString db = dir.filePath("runs.db");
        writeThreeRuns(db);
        RunsStore store(db);
        RunsView view(store);
        QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 3, 10000);
        const QString a = "20261201-100000-aaaaaaaaaaaa";
        view.selectRuns({a});
        QTRY_VERIFY_WITH_TIMEOUT(view.comparison()->complete() && view.comparisonView()->upToDate(),
                                 10000);
        RunStore(db.toStdString()).deleteRun(a.toStdString());
        QTRY_VERIFY_WITH_TIMEOUT(view.notice().contains("was deleted"), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 2, 10000);
        QVERIFY(!view.comparison()->runIds().contains(a));
    }

    void openShowsTheRunInTheChartsAsDrawnLive() {
        QTemporaryDir dir;
        const QString db = dir.filePath("runs.db");
        writeThreeRuns(db);
        MainWindow w(db);
        QTRY_COMPARE_WITH_TIMEOUT(w.runs().model()->rowCount(), 3, 10000);
        const QString b = "20261201-100100-bbbbbbbbbbbb";
        w.runs().selectRuns({b});
        w.runs().findChild<QPushButton*>("runs-open")->click();
        QTRY_COMPARE_WITH_TIMEOUT(w.chartRunId(), b, 10000);
        QCOMPARE(w.charts().lossChart()->rawGraph()->dataCount(), 20);
        QCOMPARE(w.charts().lossChart()->rawGraph()->data()->at(0)->value, 4.0);
    }

    // A run stopped in the window: "Use this set-up" loads its config, "Resume" continues it
    // from its checkpoint in the same record until it completes.
    void useSetupAndResumeAStoppedRun() {
        QTemporaryDir dir;
        MainWindow w(dir.filePath("runs.db"));
        w.show();
        RunConfig config = test::tinyRunConfig(dir.filePath("ckpt"), 4);
        config.set("lr", "0.0123");
        w.setup().setConfig(config);
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  30000);
        QVERIFY(w.train());
        // Paused first, so the stop lands mid-run whatever the machine's speed.
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller().currentRunId().isEmpty(), 30000);
        w.controller().pause();
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), ui::RunController::State::Paused, 30000);
        w.controller().stop();
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), ui::RunController::State::Idle, 60000);
        RunsView& runs = w.runs();
        const auto onlyRun = [&]() -> const RunRecord* {
            return runs.model()->rowCount() == 1 ? &runs.model()->runAt(0) : nullptr;
        };
        QTRY_VERIFY_WITH_TIMEOUT(onlyRun() && onlyRun()->status == RunStatus::Stopped, 10000);
        const QString id = QString::fromStdString(onlyRun()->id);
        const int64_t stoppedAt = onlyRun()->steps;
        runs.selectRuns({id});

        w.setup().setConfig(test::tinyRunConfig(dir.filePath("ckpt"), 4)); // lr back to default
        runs.findChild<QPushButton*>("runs-use-setup")->click();
        QVERIFY(qFuzzyCompare(w.setup().config().toJson().at("lr").get<double>(), 0.0123));

        QPushButton* resume = runs.findChild<QPushButton*>("runs-resume");
        QVERIFY(resume->isEnabled());
        resume->click();
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), ui::RunController::State::Idle, 120000);
        QTRY_VERIFY_WITH_TIMEOUT(onlyRun() && onlyRun()->status == RunStatus::Completed, 10000);
        QCOMPARE(QString::fromStdString(onlyRun()->id), id);
        QVERIFY(onlyRun()->steps > stoppedAt);
    }

    // An experiment started from the window trains its arms, logs each repeat and the
    // conclusion, and ends with its runs compared in the Runs tab, one line per arm.
    void anExperimentEndsComparedInTheRunsTab() {
        QTemporaryDir dir;
        MainWindow w(dir.filePath("runs.db"));
        w.show();
        w.setup().setConfig(test::tinyRunConfig(dir.filePath("ckpt")));
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  30000);
        ExperimentPreset p;
        p.id = "batches";
        p.title = "Batches";
        p.steps = 4;
        p.repeats = 2;
        p.arms = {{"batch_size=16", {{"batch_size", "16"}}},
                  {"batch_size=32", {{"batch_size", "32"}}}};
        p.images = ExperimentImages{"png", 32, 0}; // the arms read the shapes as files
        QVERIFY(w.runExperiment(p));
        QVERIFY(!w.findChild<QAction*>("action-train")->isEnabled());
        QVERIFY(w.findChild<QAction*>("action-stop")->isEnabled());
        QVERIFY(!w.runExperiment(p)); // one at a time
        const auto log = [&] { return w.findChild<QTextBrowser*>("log")->toPlainText(); };
        QTRY_VERIFY_WITH_TIMEOUT(log().contains("experiment: "), 120000);
        QVERIFY2(log().contains("as PNG files of 32 px (" + m_dir.filePath("data")),
                 qPrintable(log()));
        QVERIFY2(log().contains("batch_size=32 against batch_size=16") ||
                     log().contains("batch_size=32 trained"),
                 qPrintable(log()));
        QTRY_COMPARE_WITH_TIMEOUT(w.runs().comparison()->runIds().size(), 4, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(
            w.runs().comparison()->complete() && w.runs().comparisonView()->upToDate(), 10000);
        QCOMPARE(w.runs().comparisonView()->plot()->lines().size(), std::size_t{2});
        QVERIFY(w.findChild<QAction*>("action-train")->isEnabled());
    }

    // A run that failed before its first step has no charts: "Open" says why instead.
    void aRunWithoutStepsSaysWhyItCannotOpen() {
        QTemporaryDir dir;
        const QString db = dir.filePath("runs.db");
        {
            RunStore store(db.toStdString());
            test::StoredRun r = test::storedRun("20261201-120000-eeeeeeeeeeee", "broken");
            r.steps = 0;
            r.status = RunStatus::Failed;
            test::writeStoredRun(store, r);
        }
        RunsStore store(db);
        RunsView view(store);
        QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 1, 10000);
        view.selectRuns({"20261201-120000-eeeeeeeeeeee"});
        QSignalSpy open(&view, &RunsView::openRequested);
        view.findChild<QPushButton*>("runs-open")->click();
        QCOMPARE(open.count(), 0);
        QVERIFY2(view.notice().contains("no training step") &&
                     view.notice().contains("injected failure"),
                 qPrintable(view.notice()));
    }

    // A newer TrainBench's store: listed, read-only, and said so; edits are disabled.
    void aNewerStoreIsShownReadOnly() {
        QTemporaryDir dir;
        const QString db = dir.filePath("runs.db");
        writeThreeRuns(db);
        {
            SqliteDb raw(db.toStdString(), false, std::chrono::milliseconds(1000));
            raw.exec("PRAGMA user_version = " + std::to_string(currentSchemaVersion() + 3));
        }
        RunsStore store(db);
        RunsView view(store);
        QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 3, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(view.notice().contains("newer TrainBench"), 10000);
        view.selectRuns({"20261201-100000-aaaaaaaaaaaa"});
        QVERIFY(!view.findChild<QPushButton*>("runs-delete")->isEnabled());
        QVERIFY(!view.findChild<QPushButton*>("runs-rename")->isEnabled());
    }

    // A file that is not a run store is named in the notice and left byte for byte as it was.
    void aForeignFileIsRefusedUntouched() {
        QTemporaryDir dir;
        const QString db = dir.filePath("runs.db");
        QFile f(db);
        QVERIFY(f.open(QIODevice::WriteOnly));
        const QByteArray bytes("this is not a database, just text\n");
        f.write(bytes);
        f.close();
        RunsStore store(db);
        RunsView view(store);
        QTRY_VERIFY_WITH_TIMEOUT(view.notice().contains(db), 10000);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), bytes);
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestRunsView)
#include "tst_runsview.moc"

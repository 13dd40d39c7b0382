// Screenshots of every view of the window, for looking at (tests/ui/screenshots.sh runs this
// under xvfb-run). Not a ctest: it asserts only that each view reached the state it shows.
// TB_SHOTS_DIR names the output folder.
#include "charts/chartspanel.h"
#include "charts/losschart.h"
#include "charts/rankschart.h"
#include "darkpalette.h"
#include "data/datasetexport.h"
#include "experiments/batchfinderdialog.h"
#include "experiments/experimentcontroller.h"
#include "experiments/lrfinderdialog.h"
#include "help/helpwindow.h"
#include "mainwindow.h"
#include "memory/llmmemorydialog.h"
#include "predictions/detectiongallery.h"
#include "predictions/detectionpage.h"
#include "predictions/drawingcanvas.h"
#include "predictions/exportmodeldialog.h"
#include "predictions/generatepanel.h"
#include "predictions/predictionspanel.h"
#include "predictions/segmentationgallery.h"
#include "predictions/segmentationpage.h"
#include "predictions/tryitpanel.h"
#include "profile/profilepanel.h"
#include "runcontroller.h"
#include "runs/comparison.h"
#include "runs/comparisonview.h"
#include "runs/importanceview.h"
#include "runs/parallelcoordinates.h"
#include "runs/parametersplot.h"
#include "runs/runstablemodel.h"
#include "runs/runsview.h"
#include "session/profilesession.h"
#include "session/runsession.h"
#include "setup/setuppanel.h"
#include "status/failurebanner.h"
#include "store/runstore.h"
#include "support/storedruns.h"
#include "sweeps/sweepcontroller.h"
#include "sweeps/sweepdialog.h"
#include "sweeps/sweeppanel.h"
#include "train/trainer.h"
#include "uitestutil.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <qcustomplot.h>

using namespace tb;
using State = tb::ui::RunController::State;

namespace {

// An lr sweep of six stored runs, three seeds at lr 0.05 and 0.1 (the second converging
// faster), and a stopped baseline: what a comparison looks like after an afternoon's runs.
QStringList writeSweep(const QString& path) {
    RunStore store(path.toStdString());
    QStringList ids;
    int n = 0;
    for (const double lr : {0.05, 0.1})
        for (const int seed : {1, 2, 3}) {
            ++n;
            const std::string id =
                "20261201-1" + std::to_string(n) + "0000-00000000000" + std::to_string(n);
            test::StoredRun r = test::storedRun(id, "lr" + std::to_string(lr).substr(0, 4) +
                                                        "-seed" + std::to_string(seed));
            r.config = {{"lr", lr}, {"seed", seed}, {"batch_size", 32 * (1 + n % 3)}};
            r.steps = 3000;
            r.stepsPerEpoch = 500;
            r.lossScale = (lr > 0.06 ? 0.6 : 1.0) * (1.0 + 0.05 * seed);
            r.lossNoise = 0.35;
            r.valAcc = {};
            for (int e = 1; e <= 6; ++e)
                r.valAcc.push_back((lr > 0.06 ? 0.91 : 0.88) - 0.3 / (e + 1) - 0.004 * seed);
            r.startedAt += 3600.0 * n;
            r.tags = {"lr-sweep"};
            test::writeStoredRun(store, r);
            ids << QString::fromStdString(id);
        }
    test::StoredRun stopped = test::storedRun("20261201-090000-0000000000ff", "baseline");
    stopped.steps = 1200;
    stopped.stepsPerEpoch = 500;
    stopped.lossScale = 1.4;
    stopped.lossNoise = 0.35;
    stopped.status = RunStatus::Stopped;
    test::writeStoredRun(store, stopped);
    return ids;
}

// Fashion-MNIST written as a folder of PNG files per class set: six classes to pretrain on (A)
// and four others, 200 images each, to fine-tune on (B), as tests/bench/transfer.sh does.
void writeTransferFolders(const QString& dir) {
    DatasetExportOptions options;
    options.format = "png";
    options.limit = 6000;
    exportImageFolder(RunConfig().data, dir.toStdString() + "/all", options);
    QDir all(dir + "/all");
    QDir(dir).mkpath("a");
    for (const QString c : {"T-shirt_top", "Trouser", "Pullover", "Dress", "Coat", "Sandal"})
        QVERIFY(all.rename(c, dir + "/a/" + c));
    for (const QString c : {"Shirt", "Sneaker", "Bag", "Ankle boot"}) {
        QVERIFY(QDir(dir).mkpath("b/" + c));
        const QStringList files = QDir(all.filePath(c)).entryList(QDir::Files, QDir::Name);
        for (const QString& f : files.mid(0, 200))
            QVERIFY(QFile::rename(all.filePath(c + "/" + f), dir + "/b/" + c + "/" + f));
    }
}

RunConfig transferRun(const QString& root, const QString& checkpoints) {
    RunConfig c;
    c.set("dataset", "imagefolder");
    c.set("data.root", root.toStdString());
    c.set("data.image_size", "28");
    c.set("data.norm_stats", "dataset");
    c.set("model", "fmnist-cnn");
    c.set("batch_size", "32");
    c.set("num_workers", "1");
    c.set("checkpoint_dir", checkpoints.toStdString());
    return c;
}

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
    // The row's palette (light or dark) and fresh settings, for a view of the window; returns
    // the row's tag.
    static QString beginView() {
        QFETCH(bool, dark);
        QApplication::setPalette(dark ? test::darkPalette()
                                      : QApplication::style()->standardPalette());
        QSettings().clear();
        return QString::fromLatin1(QTest::currentDataTag());
    }
    static bool showWindow(QWidget& w, QSize size) {
        w.resize(size);
        w.show();
        return QTest::qWaitForWindowExposed(&w);
    }

    QTemporaryDir m_tmp;
    QDir m_out;
    QString m_pretrained; // fineTuning's checkpoint trained on set A, shared by its rows

    void save(QWidget& w, const QString& name) {
        // Layouts settle over a few posted requests (a label's, its panel's, the column's):
        // the picture is taken once they have.
        for (int pass = 0; pass < 4; ++pass) {
            QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
            QApplication::processEvents();
        }
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
        const QString tag = beginView();
        ui::MainWindow w(m_tmp.filePath(tag + ".db"));
        QVERIFY(showWindow(w, size));
        auto* train = w.findChild<QAction*>("action-train");
        QTRY_VERIFY_WITH_TIMEOUT(train->isEnabled(), 60000);
        save(w, "first-launch-" + tag);

        w.setup().setConfig(showcaseRun(m_tmp.filePath("ckpt")));
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  60000);
        QVERIFY(w.train());
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Idle, 300000);
        save(w, "trained-" + tag);
        // The keyboard focus: on a chart (the ring) and on a field (the style's frame).
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QApplication::setCursorFlashTime(0);
        w.charts().lossChart()->plot()->setFocus(Qt::TabFocusReason);
        save(w, "focus-chart-" + tag);
        auto* lrField = w.findChild<QLineEdit*>("lr");
        w.findChild<QScrollArea*>("setup-scroll")->ensureWidgetVisible(lrField);
        lrField->setFocus(Qt::TabFocusReason);
        save(w, "focus-field-" + tag);
        QApplication::setCursorFlashTime(1000);
        w.showTab(w.findChild<QWidget*>("hardware-panel"));
        save(w, "hardware-" + tag);
        w.showTab(&w.charts());

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

    // The Runs tab: the table, five runs compared, the sweep grouped by lr, the parameters view.
    void runs_data() { views_data(); }
    void runs() {
        QFETCH(QSize, size);
        const QString tag = beginView();
        const QString db = m_tmp.filePath("runs-" + tag + ".db");
        const QStringList sweep = writeSweep(db);
        ui::MainWindow w(db);
        QVERIFY(showWindow(w, size));
        w.showTab(&w.runs());
        QTRY_COMPARE_WITH_TIMEOUT(w.runs().model()->rowCount(), 7, 10000);
        save(w, "runs-table-" + tag);

        w.runs().selectRuns(sweep.mid(0, 5));
        QTRY_VERIFY_WITH_TIMEOUT(
            w.runs().comparison()->complete() && w.runs().comparisonView()->upToDate(), 10000);
        ui::ComparisonView* cv = w.runs().comparisonView();
        cv->setSeries("train/loss");
        cv->setLogY(true);
        save(w, "runs-compare-" + tag);

        w.runs().selectRuns(sweep);
        QTRY_VERIFY_WITH_TIMEOUT(
            w.runs().comparison()->complete() && w.runs().comparisonView()->upToDate(), 10000);
        cv->setGroupBy("lr");
        save(w, "runs-grouped-" + tag);
        cv->setGroupBy("");

        cv->tabs()->setCurrentWidget(cv->parameters());
        save(w, "runs-parameters-" + tag);
        cv->tabs()->setCurrentIndex(1);
        save(w, "runs-summary-" + tag);
        cv->tabs()->setCurrentIndex(0);

        // The learning-rate experiment, shortened, on the showcase set-up: its arms compared.
        w.setup().setConfig(showcaseRun(m_tmp.filePath("ckpt")));
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  60000);
        ExperimentPreset lr = findExperiment("lr");
        lr.steps = 60;
        cv->setSeries("train/loss");
        QVERIFY(w.runExperiment(lr));
        QTRY_VERIFY_WITH_TIMEOUT(!w.experiments().running(), 300000);
        QTRY_VERIFY_WITH_TIMEOUT(w.runs().comparison()->runIds().size() == 9 &&
                                     w.runs().comparison()->complete() && cv->upToDate(),
                                 30000);
        save(w, "experiment-" + tag);
    }

    // Teaching: the Predictions tab after a run (with a drawing in Try it), both finders at
    // their result, and lesson mode with the lesson in the Learn tab.
    void teaching_data() { views_data(); }
    void teaching() {
        QFETCH(QSize, size);
        const QString tag = beginView();
        ui::MainWindow w(m_tmp.filePath("teaching-" + tag + ".db"));
        QVERIFY(showWindow(w, size));
        // Six classes for an epoch: a model that still mixes some up.
        RunConfig c = showcaseRun(m_tmp.filePath("ckpt"));
        c.set("precision", "32");
        c.set("data.synthetic_classes", "6");
        c.set("max_epochs", "1");
        w.setup().setConfig(c);
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  60000);
        QVERIFY(w.train());
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Idle, 300000);
        w.showTab(&w.predictions());
        ui::TryItPanel* tryIt = w.predictions().tryIt();
        QTRY_VERIFY_WITH_TIMEOUT(tryIt->modelReady(), 60000);
        // A square, drawn as a user would.
        const double r = ui::DrawingCanvas::kResolution;
        const QPointF corners[] = {{0.3 * r, 0.3 * r},
                                   {0.7 * r, 0.3 * r},
                                   {0.7 * r, 0.7 * r},
                                   {0.3 * r, 0.7 * r},
                                   {0.3 * r, 0.3 * r}};
        for (int i = 0; i + 1 < 5; ++i)
            tryIt->canvas()->drawStroke(corners[i], corners[i + 1]);
        emit tryIt->canvas()->changed();
        QVERIFY(!tryIt->predictions().empty());
        save(w, "predictions-" + tag);

        ui::LrFinderDialog* lr = w.showLrFinder();
        lr->setSweep(1e-5, 10.0, 120);
        QVERIFY(lr->start());
        QTRY_VERIFY_WITH_TIMEOUT(!lr->running(), 300000);
        QVERIFY(QTest::qWaitForWindowExposed(lr));
        save(*lr, "lr-finder-" + tag);
        lr->close();

        ui::BatchFinderDialog* batch = w.showBatchFinder();
        batch->setSearch(0, 16, 256);
        QVERIFY(batch->start());
        QTRY_VERIFY_WITH_TIMEOUT(!batch->running(), 300000);
        QVERIFY(QTest::qWaitForWindowExposed(batch));
        save(*batch, "batch-finder-" + tag);
        batch->close();

        w.findChild<QAction*>("lesson-data-loading")->trigger();
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  60000);
        save(w, "lesson-" + tag);
    }

    // A data-parallel job of two CPU ranks trained from the window (the Ranks chart beside the
    // hardware chart), and the Help window searching the guides.
    void scaleAndHelp_data() { views_data(); }
    void scaleAndHelp() {
        QFETCH(QSize, size);
        const QString tag = beginView();
        ui::MainWindow w(m_tmp.filePath("scale-" + tag + ".db"));
        QVERIFY(showWindow(w, size));
        RunConfig c = showcaseRun(m_tmp.filePath("ckpt"));
        c.set("precision", "32");
        c.set("data.synthetic_samples", "4000");
        c.set("max_epochs", "2");
        c.set("threads", "1");
        c.set("ranks", "2");
        c.set("sync_batchnorm", "true");
        w.setup().setConfig(c);
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  60000);
        QVERIFY(w.train());
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Idle, 300000);
        QVERIFY(w.charts().ranksChart()->rankCount() == 2);
        save(w, "data-parallel-" + tag);

        w.findChild<QAction*>("action-user-guide")->trigger();
        auto* help = w.findChild<ui::HelpWindow*>("help-window");
        QVERIFY(help);
        help->resize(size * 0.8);
        QVERIFY(QTest::qWaitForWindowExposed(help));
        save(*help, "help-guide-" + tag);
        help->search("ranks");
        save(*help, "help-search-" + tag);
        help->close();
    }

    // The Profile tab after "Profile 20 Steps" on resnet20 (32 px shapes, batch 64).
    void profile_data() { views_data(); }
    void profile() {
        QFETCH(QSize, size);
        const QString tag = beginView();
        ui::MainWindow w(m_tmp.filePath("profile-" + tag + ".db"));
        QVERIFY(showWindow(w, size));
        RunConfig c = test::tinyRunConfig(m_tmp.filePath("ckpt"), 2);
        c.set("model", "resnet20");
        c.set("data.image_size", "32");
        c.set("data.synthetic_samples", "3000");
        c.set("batch_size", "64");
        bool paused = false;
        connect(&w.controller(), &ui::RunController::stepsArrived, this, [&] {
            if (!paused) {
                paused = true;
                w.controller().pause();
            }
        });
        w.setup().setConfig(c);
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  60000);
        QVERIFY(w.train());
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Paused, 60000);
        w.showTab(&w.profile());
        w.profile().profileButton()->click();
        w.controller().resume();
        QTRY_VERIFY_WITH_TIMEOUT(w.profile().report().has_value(), 300000);
        w.controller().stop();
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Idle, 300000);
        save(w, "profile-" + tag);
    }

    // resnet20 trained in 32-bit, profiled again from its checkpoint at bf16-mixed (as
    // `trainbench-cli profile --from RUN --set precision=bf16-mixed` does), and the two
    // profiles compared in the Profile tab.
    void profileCompare_data() { views_data(); }
    void profileCompare() {
        QFETCH(QSize, size);
        const QString tag = beginView();
        const QString db = m_tmp.filePath("profile-compare-" + tag + ".db");
        RunConfig c = test::tinyRunConfig(m_tmp.filePath("ckpt-compare-" + tag), 1);
        c.set("model", "resnet20");
        c.set("data.image_size", "32");
        c.set("data.synthetic_samples", "1024");
        c.set("batch_size", "64");
        RunSessionOptions options;
        options.databasePath = db.toStdString();
        RunSession trained(c, options, {});
        trained.requestProfile(10, 3);
        const RunFinishedEvent f = trained.run();
        QCOMPARE(toString(f.status), std::string("completed"));
        RunConfig bf16 = Trainer::configFromCheckpoint(f.checkpoint);
        bf16.set("precision", "bf16-mixed");
        ProfileRunOptions again;
        again.steps = 10;
        again.warmup = 3;
        again.timeUnprofiled = false;
        again.weightsFrom = f.checkpoint;
        const ProfileRunResult result = runProfile(bf16, again);
        QVERIFY(result.report);
        RunStore(db.toStdString()).addProfile(trained.runId(), *result.report);

        ui::MainWindow w(db);
        QVERIFY(showWindow(w, size));
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  60000); // the set-up's dataset open, as a user finds it
        w.profile().showStoredRun(QString::fromStdString(trained.runId()),
                                  QString::fromStdString(f.checkpoint));
        QComboBox* compare = w.profile().compareBox();
        compare->setCurrentIndex(
            compare->findText(QStringLiteral("this run, profile 1"), Qt::MatchStartsWith));
        QVERIFY(w.profile().comparison().has_value());
        w.showTab(&w.profile());
        save(w, "profile-compare-" + tag);
    }

    // Run > Language Model Memory: LLaMA-7B in bf16 for inference (the "7B needs 24 GB"), and
    // the same model trained with AdamW under activation checkpointing.
    void llmMemory_data() { views_data(); }
    void llmMemory() {
        QFETCH(QSize, size);
        const QString tag = beginView();
        ui::MainWindow w(m_tmp.filePath("llm-" + tag + ".db"));
        QVERIFY(showWindow(w, size));
        ui::LlmMemoryDialog* d = w.showLlmMemory();
        QVERIFY(QTest::qWaitForWindowExposed(d));
        QVERIFY(d->choosePreset(QStringLiteral("llama-7b")));
        save(*d, "llm-memory-" + tag);
        d->setTraining(true);
        d->setCheckpointing(true);
        save(*d, "llm-memory-training-" + tag);
        d->close();
    }

    // A GPT on a file of fortune's quotations: what it wrote after each epoch, and a prompt
    // continued in the Generate panel.
    void languageModel_data() { views_data(); }
    void languageModel() {
        QFETCH(QSize, size);
        const QString corpus = QStringLiteral("/usr/share/games/fortunes/songs-poems");
        if (!QFile::exists(corpus))
            QSKIP("needs the fortunes package");
        const QString tag = beginView();
        ui::MainWindow w(m_tmp.filePath("gpt-" + tag + ".db"));
        QVERIFY(showWindow(w, size));
        RunConfig c;
        c.set("dataset", "text");
        c.set("data.root", corpus.toStdString());
        c.set("model", "gpt");
        c.set("optimizer", "adamw");
        c.set("lr", "0.003");
        c.set("weight_decay", "0.1");
        c.set("lr_schedule", "cosine");
        c.set("warmup_steps", "50");
        c.set("gradient_clip_val", "1.0");
        c.set("batch_size", "32");
        c.set("max_epochs", "8");
        c.set("checkpoint_dir", m_tmp.filePath("ckpt-gpt").toStdString());
        w.setup().setConfig(c);
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  60000);
        QVERIFY(w.train());
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Idle, 600000);
        save(w, "gpt-charts-" + tag);
        w.showTab(&w.predictions());
        ui::GeneratePanel* g = w.predictions().generatePanel();
        QTRY_VERIFY_WITH_TIMEOUT(g->modelReady(), 60000);
        g->promptEdit()->setText(QStringLiteral("Love is "));
        QSignalSpy written(g, &ui::GeneratePanel::generated);
        g->generate();
        QTRY_COMPARE_WITH_TIMEOUT(written.count(), 1, 60000);
        save(w, "generate-" + tag);
    }

    // A detector: yolov8n on shapes-detect at 96 px for a few minutes' worth of epochs, its
    // charts (the loss's box, cls and dfl; mAP), the Predictions tab's detection page with the
    // validation images' boxes, and the set-up panel's scenes with their boxes.
    void detection_data() { views_data(); }
    void detection() {
        QFETCH(QSize, size);
        const QString tag = beginView();
        ui::MainWindow w(m_tmp.filePath("detect-" + tag + ".db"));
        QVERIFY(showWindow(w, size));
        RunConfig c;
        c.set("dataset", "shapes-detect");
        c.set("data.imgsz", "96");
        c.set("data.synthetic_samples", "640");
        c.set("batch_size", "16");
        c.set("max_epochs", "24");
        c.set("data.close_mosaic", "4");
        c.set("checkpoint_dir", m_tmp.filePath("ckpt-detect").toStdString());
        w.setup().setConfig(c);
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  60000);
        save(w, "detection-setup-" + tag);
        QVERIFY(w.train());
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Idle, 900000);
        save(w, "detection-charts-" + tag);
        w.showTab(&w.predictions());
        ui::DetectionGallery* gallery = w.predictions().detectionPage()->gallery();
        QTRY_VERIFY_WITH_TIMEOUT(gallery->modelReady() && !gallery->loading() &&
                                     gallery->checkpoint() == w.predictions().checkpoint(),
                                 60000);
        w.predictions().detectionPage()->classTable()->setCurrentCell(3, 0);
        gallery->setConfidence(0.15f); // a young model's boxes are seldom surer
        save(w, "detection-predictions-" + tag);
    }

    // Segmentation: the U-Net on shapes-seg for 20 epochs (about half a minute), its charts (the
    // pixel accuracy and mIoU), the Predictions tab's segmentation page with the worst images'
    // true and predicted masks, and the set-up panel's scenes with their masks.
    void segmentation_data() { views_data(); }
    void segmentation() {
        QFETCH(QSize, size);
        const QString tag = beginView();
        ui::MainWindow w(m_tmp.filePath("segment-" + tag + ".db"));
        QVERIFY(showWindow(w, size));
        RunConfig c;
        c.set("dataset", "shapes-seg");
        c.set("data.synthetic_samples", "1200");
        c.set("data.augment", "true");
        c.set("max_epochs", "20");
        c.set("checkpoint_dir", m_tmp.filePath("ckpt-segment").toStdString());
        w.setup().setConfig(c);
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  60000);
        save(w, "segmentation-setup-" + tag);
        QVERIFY(w.train());
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Idle, 900000);
        save(w, "segmentation-charts-" + tag);
        w.showTab(&w.predictions());
        ui::SegmentationGallery* gallery = w.predictions().segmentationPage()->gallery();
        QTRY_VERIFY_WITH_TIMEOUT(gallery->modelReady() && !gallery->loading() &&
                                     gallery->checkpoint() == w.predictions().checkpoint(),
                                 60000);
        save(w, "segmentation-predictions-" + tag);
    }

    // File > Export Model on a finished run, after an ONNX export.
    void exportModel_data() { views_data(); }
    void exportModel() {
        QFETCH(QSize, size);
        const QString tag = beginView();
        ui::MainWindow w(m_tmp.filePath("export-" + tag + ".db"));
        QVERIFY(showWindow(w, size));
        w.setup().setConfig(test::tinyRunConfig(m_tmp.filePath("ckpt-export"), 1));
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  60000);
        QVERIFY(w.train());
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Idle, 300000);
        auto* action = w.findChild<QAction*>("action-export-model");
        QTRY_VERIFY(action->isEnabled());
        ui::ExportModelDialog* d = w.exportModel();
        QVERIFY(QTest::qWaitForWindowExposed(d));
        d->pathEdit()->setText(m_tmp.filePath("model-" + tag + ".onnx"));
        QSignalSpy exported(d, &ui::ExportModelDialog::exported);
        d->exportButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, 60000);
        save(*d, "export-model-" + tag);
        d->close();
    }

    // Run > Sweep... on the tiny set-up (lr x batch_size, 9 trials, 2 at once), the Sweep tab
    // once it ends, and its runs in the parallel coordinates (a range brushed) and importance.
    void sweeps_data() { views_data(); }
    void sweeps() {
        QFETCH(QSize, size);
        const QString tag = beginView();
        ui::MainWindow w(m_tmp.filePath("sweep-" + tag + ".db"));
        QVERIFY(showWindow(w, size));
        w.setup().setConfig(test::tinyRunConfig(m_tmp.filePath("ckpt-sweep"), 2));
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  60000);
        ui::SweepDialog* d = w.showSweepDialog();
        QVERIFY(QTest::qWaitForWindowExposed(d));
        d->setName("lr-batch");
        d->removeParameter(1);
        d->addParameter("batch_size", "16, 32, 64");
        d->setParallel(2);
        d->setMetric("best_val_acc");
        save(*d, "sweep-dialog-" + tag);
        d->startButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!w.sweeps().running(), 300000);
        w.showTab(&w.sweepPanel());
        save(w, "sweep-tab-" + tag);
        QTRY_COMPARE_WITH_TIMEOUT(w.runs().selectedRunIds().size(), 9, 30000);
        ui::ComparisonView* cv = w.runs().comparisonView();
        QTRY_VERIFY_WITH_TIMEOUT(w.runs().comparison()->complete() && cv->upToDate(), 10000);
        w.showTab(&w.runs());
        cv->tabs()->setCurrentWidget(cv->importance());
        save(w, "sweep-importance-" + tag);
        cv->tabs()->setCurrentWidget(cv->parallelCoordinates());
        cv->parallelCoordinates()->setBrush("best_val_acc", 0.6, 1.0);
        save(w, "sweep-parallel-" + tag);
    }

    // Fine-tuning on a folder of images: fmnist-cnn pretrained on six Fashion-MNIST classes,
    // then its backbone frozen and a new head trained on 100 images of each of four others
    // (another 100 of each held out for validation).
    void fineTuning_data() { views_data(); }
    void fineTuning() {
        QFETCH(QSize, size);
        const QString tag = beginView();
        const QString folders = m_tmp.filePath("transfer");
        if (!QDir(folders).exists()) {
            try {
                writeTransferFolders(folders);
            } catch (const std::exception& e) {
                QSKIP(qPrintable(QStringLiteral("needs Fashion-MNIST: %1").arg(e.what())));
            }
            if (QTest::currentTestFailed())
                return;
            RunConfig pretrain = transferRun(folders + "/a", m_tmp.filePath("ckpt-a"));
            pretrain.set("max_epochs", "1");
            RunSession session(pretrain, {}, {});
            const RunFinishedEvent f = session.run();
            QCOMPARE(toString(f.status), std::string("completed"));
            m_pretrained = QString::fromStdString(f.checkpoint);
        }
        ui::MainWindow w(m_tmp.filePath("finetune-" + tag + ".db"));
        QVERIFY(showWindow(w, size));
        RunConfig c = transferRun(folders + "/b", m_tmp.filePath("ckpt-b"));
        c.set("data.val_fraction", "0.5");
        c.set("max_epochs", "10");
        c.set("model.pretrained", m_pretrained.toStdString());
        c.set("finetune.freeze", "backbone");
        c.set("lr", "0.001");
        c.set("finetune.head_lr_mult", "10");
        w.setup().setConfig(c);
        QTRY_VERIFY2_WITH_TIMEOUT(w.setup().blocker().isEmpty(), qPrintable(w.setup().blocker()),
                                  60000);
        QVERIFY(w.train());
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Idle, 300000);
        w.findChild<QScrollArea*>("setup-scroll")
            ->ensureWidgetVisible(w.findChild<QWidget*>("model-layers"));
        save(w, "finetune-" + tag);
    }
};

QTEST_MAIN(WindowShots)
#include "windowshots.moc"

// The window's teaching parts: advice on the charts and in the log, the confusion matrix and
// the misclassified grid, Try it on a real checkpoint, the Learn tab and lessons (lesson mode,
// a bad lesson file), and both finders driven to their result and applied.
#include "charts/chartspanel.h"
#include "charts/losschart.h"
#include "charts/throughputchart.h"
#include "concepts/conceptcards.h"
#include "experiments/batchfinderdialog.h"
#include "experiments/experimentpreset.h"
#include "experiments/lesson.h"
#include "experiments/lrfinderchart.h"
#include "experiments/lrfinderdialog.h"
#include "learn/learnpanel.h"
#include "learn/lessonview.h"
#include "mainwindow.h"
#include "predictions/confusionmodel.h"
#include "predictions/drawingcanvas.h"
#include "predictions/predictionspanel.h"
#include "predictions/tryitpanel.h"
#include "runcontroller.h"
#include "setup/setuppanel.h"
#include "status/logpanel.h"
#include "support/runlog.h"
#include "train/advisor.h"
#include "train/trainer.h"
#include "uitestutil.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QFile>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStyleFactory>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

#include <qcustomplot.h>

using namespace tb;
using namespace tb::ui;
using State = RunController::State;

namespace {
StepEvent stepAt(int64_t step) {
    StepEvent s;
    s.step = step;
    s.samplesSeen = step * 32;
    s.unixTime = 1000.0 + static_cast<double>(step);
    s.loss = 1.0;
    s.stepMs = 10;
    s.samplesPerSec = 3200;
    return s;
}

ValidationReport reportOf3() {
    ValidationReport r;
    r.classes = 3;
    r.classNames = {"circle", "square", "triangle"};
    r.confusion = {8, 2, 0, /**/ 1, 9, 0, /**/ 0, 5, 5};
    for (int i = 0; i < 3; ++i) {
        MisclassifiedSample s;
        s.index = 10 + i;
        s.label = 2;
        s.predicted = 1;
        s.confidence = 0.6f;
        s.shape = {1, 4, 4};
        s.pixels.assign(16, 0.0f);
        s.pixels[static_cast<std::size_t>(i)] = 1.0f;
        r.misclassified.push_back(s);
    }
    return r;
}

// Whether the editor of a config key is shown in the set-up column.
bool shown(MainWindow& w, const char* key) {
    QWidget* editor = w.setup().editorOf(key);
    return editor && editor->isVisibleTo(&w.setup());
}
} // namespace

class TestTeaching : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_checkpoint; // of a tiny trained run, made once

    QString trainedCheckpoint() {
        if (m_checkpoint.isEmpty()) {
            RunConfig c = test::tinyRunConfig(m_dir.filePath("trained"), 2);
            c.set("model", "mlp");
            test::RunLog log;
            const RunFinishedEvent f = Trainer(c, log).run();
            m_checkpoint = QString::fromStdString(f.checkpoint);
        }
        return m_checkpoint;
    }

private slots:
    void initTestCase() {
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath("settings"));
        QApplication::setStyle(QStyleFactory::create("Fusion"));
    }

    // Each rule's advice names a card the window has; every preset and lesson too.
    void everyCardNamedExists() {
        for (const char* rule : {"data-starved", "low-gpu-util", "memory-full", "nan-loss",
                                 "diverging", "fp16-overflow", "cpu-with-gpu", "throughput-drop"})
            QVERIFY2(findConceptCard(QString::fromStdString(conceptCardOfRule(rule))), rule);
        for (const ExperimentPreset& p : builtinExperiments())
            QVERIFY2(findConceptCard(QString::fromStdString(p.conceptCard)), p.id.c_str());
        for (const Lesson& l : builtinLessons())
            for (const std::string& card : l.cards)
                QVERIFY2(findConceptCard(QString::fromStdString(card)),
                         (l.id + ": " + card).c_str());
    }

    void adviceIsMarkedOnTheChartsAndLinksItsCard() {
        ChartsPanel charts;
        RunStartedEvent run;
        charts.beginRun(run, 1000.0);
        charts.addSteps({stepAt(1), stepAt(2), stepAt(3), stepAt(4)});
        charts.addAdvice(AdviceEvent{"low-gpu-util", "the GPU idles", 3, 1003.0});
        const AdviceMarkers* loss = charts.lossChart()->adviceMarkers();
        QCOMPARE(loss->count(), 1);
        QCOMPARE(loss->rule(0), QString("low-gpu-util"));
        QCOMPARE(loss->x(0), 3.0);
        QCOMPARE(charts.throughputChart()->adviceMarkers()->count(), 1);
        charts.setXAxisMode(XAxisMode::Samples);
        QCOMPARE(loss->x(0), 96.0);
        charts.setXAxisMode(XAxisMode::WallTime);
        QCOMPARE(loss->x(0), 3.0);
        charts.beginRun(run, 2000.0); // a new run starts clean
        QCOMPARE(loss->count(), 0);

        LogPanel log;
        log.addAdvice(AdviceEvent{"low-gpu-util", "the GPU idles", 3, 1003.0});
        const QString html = log.findChild<QTextBrowser*>()->toHtml();
        QVERIFY2(html.contains("concept:data-starved"), qPrintable(html));
    }

    void confusionMatrixAndMisclassifiedGrid() {
        PredictionsPanel panel;
        QAbstractItemModelTester tester(panel.confusionModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.beginRun("run-1");
        EpochEvent e1, e2;
        e1.epoch = 1;
        e1.valAcc = 0.5;
        e1.validation = reportOf3();
        e2 = e1;
        e2.epoch = 2;
        e2.valAcc = 22.0 / 30.0;
        panel.addEpochs({e1, e2});
        QCOMPARE(panel.epochCount(), 2);
        QCOMPARE(panel.shownEpoch(), 2); // follows the newest
        ConfusionModel* m = panel.confusionModel();
        QCOMPARE(m->rowCount(), 3);
        QCOMPARE(m->columnCount(), 4); // three predicted classes and recall
        QCOMPARE(m->index(2, 1).data(Qt::UserRole).toLongLong(), 5);
        QCOMPARE(m->index(2, 3).data().toString(), QString("50.0%"));
        QCOMPARE(m->headerData(1, Qt::Vertical).toString(), QString("square"));
        QCOMPARE(m->recall(1), 0.9);
        const auto summary = panel.findChild<QLabel*>("predictions-summary")->text();
        QVERIFY2(summary.contains("22 of 30") && summary.contains("triangle (50.0%)"),
                 qPrintable(summary));
        QListWidget* grid = panel.misclassifiedView();
        QCOMPARE(grid->count(), 3);
        QVERIFY(!grid->item(0)->icon().isNull());
        QVERIFY(grid->item(0)->text().contains("triangle"));
        QVERIFY(grid->item(0)->text().contains("as square (60%)"));

        // A stored run's report has no pixels: listed by index, and said so.
        EpochEvent stored = e1;
        for (MisclassifiedSample& s : stored.validation.misclassified)
            s.pixels.clear();
        panel.beginRun("run-2");
        panel.addEpochs({stored});
        QVERIFY(grid->item(0)->icon().isNull());
        bool noted = false;
        for (QLabel* l : panel.findChildren<QLabel*>())
            noted = noted || l->text().contains("not their pixels");
        QVERIFY(noted);
    }

    void tryItPredictsFromACheckpoint() {
        TryItPanel panel;
        QSignalSpy loaded(&panel, &TryItPanel::modelLoaded);
        panel.setCheckpoint(trainedCheckpoint());
        QTRY_VERIFY_WITH_TIMEOUT(panel.modelReady(), 30000);
        QVERIFY2(panel.status().contains("mlp"), qPrintable(panel.status()));
        QVERIFY(panel.predictions().empty()); // nothing drawn yet
        panel.resize(500, 300);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        DrawingCanvas* canvas = panel.canvas();
        const QPoint a = canvas->rect().center() - QPoint(30, 30);
        const QPoint b = canvas->rect().center() + QPoint(30, 30);
        QTest::mousePress(canvas, Qt::LeftButton, {}, a);
        QMouseEvent move(QEvent::MouseMove, b, canvas->mapToGlobal(b), Qt::NoButton, Qt::LeftButton,
                         Qt::NoModifier);
        QApplication::sendEvent(canvas, &move);
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, b);
        QVERIFY(!canvas->isEmpty());
        const std::vector<Prediction>& top = panel.predictions();
        QCOMPARE(top.size(), std::size_t{3}); // shapes has three classes
        double sum = 0.0;
        for (std::size_t i = 0; i < top.size(); ++i) {
            sum += top[i].probability;
            if (i > 0)
                QVERIFY(top[i].probability <= top[i - 1].probability);
        }
        QVERIFY(std::abs(sum - 1.0) < 1e-6);

        const QString png = m_dir.filePath("square.png");
        QImage image(40, 40, QImage::Format_RGB32);
        image.fill(Qt::white);
        for (int y = 10; y < 30; ++y)
            for (int x = 10; x < 30; ++x)
                image.setPixel(x, y, qRgb(0, 0, 0));
        QVERIFY(image.save(png));
        QVERIFY(panel.openImage(png));
        QCOMPARE(panel.predictions().size(), std::size_t{3});
        QVERIFY(!panel.openImage(m_dir.filePath("missing.png")));
        QVERIFY(panel.status().contains("missing.png"));

        QFile junk(m_dir.filePath("junk.safetensors"));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("junk");
        junk.close();
        panel.setCheckpoint(junk.fileName());
        QTRY_VERIFY_WITH_TIMEOUT(!panel.modelReady(), 30000);
        QVERIFY2(panel.status().startsWith("Cannot use junk.safetensors"),
                 qPrintable(panel.status()));
    }

    // A window run fills the Predictions tab after each epoch, and Try it follows its checkpoint.
    void aRunFillsThePredictionsTab() {
        MainWindow w(m_dir.filePath("runs.db"));
        w.setup().setConfig(test::tinyRunConfig(m_dir.filePath("window-run")));
        auto* train = w.findChild<QAction*>("action-train");
        QTRY_VERIFY_WITH_TIMEOUT(train->isEnabled(), 30000);
        QVERIFY(w.train());
        QTRY_COMPARE_WITH_TIMEOUT(w.controller().state(), State::Idle, 120000);
        QCOMPARE(w.predictions().epochCount(), 2);
        QCOMPARE(w.predictions().confusionModel()->rowCount(), 3);
        QTRY_VERIFY_WITH_TIMEOUT(w.predictions().tryIt()->modelReady(), 30000);
        QVERIFY(w.predictions().tryIt()->checkpoint().endsWith(".safetensors"));
    }

    void learnTabStartsTheCardsExperiment() {
        LearnPanel learn;
        QCOMPARE(learn.cardList()->count(), static_cast<int>(conceptCards().size()));
        QVERIFY(learn.showCard("num_workers"));
        QCOMPARE(learn.shownExperiment(), QString("num_workers"));
        QVERIFY(learn.cardView()->toPlainText().contains("DataLoader workers"));
        QSignalSpy requested(&learn, &LearnPanel::experimentRequested);
        learn.experimentButton()->click();
        QCOMPARE(requested.count(), 1);
        QCOMPARE(requested.at(0).at(0).toString(), QString("num_workers"));
        QVERIFY(learn.showCard("flush_denormals"));
        QVERIFY(learn.shownExperiment().isEmpty()); // no preset shows it: no button
        learn.findChild<QLineEdit*>("learn-search")->setText("denormal");
        int visible = 0;
        for (int i = 0; i < learn.cardList()->count(); ++i)
            visible += learn.cardList()->item(i)->isHidden() ? 0 : 1;
        QVERIFY(visible >= 1 && visible < learn.cardList()->count());
    }

    void lessonModeShowsOnlyTheLessonsControls() {
        MainWindow w(m_dir.filePath("runs.db"));
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(shown(w, "weight_decay"));
        const Lesson* lesson = nullptr;
        for (const Lesson& l : builtinLessons())
            if (l.id == "data-loading")
                lesson = &l;
        QVERIFY(lesson);
        w.findChild<QAction*>("lesson-data-loading")->trigger();
        QCOMPARE(w.setup().config().numWorkers, 0);
        QCOMPARE(w.setup().config().batchSize, 64);
        QVERIFY(w.setup().inLessonMode());
        QVERIFY(shown(w, "num_workers"));
        QVERIFY(!shown(w, "weight_decay"));
        QVERIFY(!shown(w, "log_every_n_steps"));
        QVERIFY(w.learn().hasLesson());
        QCOMPARE(w.learn().shownCard(), QString("num_workers"));
        QCOMPARE(w.learn().lessonView()->experimentButtons().size(), 2);
        QAction* mode = w.findChild<QAction*>("view-lesson-mode");
        QVERIFY(mode->isChecked());
        mode->setChecked(false);
        QVERIFY(!w.setup().inLessonMode());
        QVERIFY(shown(w, "weight_decay"));
        QVERIFY(!w.learn().hasLesson());
        QVERIFY(!mode->isEnabled());
    }

    void aTeachersLessonFileOpensAndABadOneNamesItsKey() {
        MainWindow w(m_dir.filePath("runs.db"));
        const QString good = m_dir.filePath("my-lesson.json");
        QFile f(good);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"title": "Mine", "setup": {"batch_size": 48}, "controls": ["batch_size"],
                    "concepts": ["batch_size"], "steps": ["Train."]})");
        f.close();
        QVERIFY(w.openLessonFile(good));
        QCOMPARE(w.setup().config().batchSize, 48);
        w.leaveLesson();

        const QString bad = m_dir.filePath("bad-lesson.json");
        QFile g(bad);
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write(R"({"title": "Bad", "concepts": ["dataload"], "steps": ["x"]})");
        g.close();
        QVERIFY(!w.openLessonFile(bad));
        QMessageBox* box = w.findChild<QMessageBox*>("lesson-error");
        QVERIFY(box);
        QVERIFY2(box->text().contains("bad-lesson.json: concepts[0]"), qPrintable(box->text()));
        QVERIFY(!w.setup().inLessonMode());
    }

    void lrFinderSweepsAndApplies() {
        MainWindow w(m_dir.filePath("runs.db"));
        RunConfig c = test::tinyRunConfig(m_dir.filePath("lr-find"), 1);
        c.set("model", "mlp");
        w.setup().setConfig(c);
        QTRY_VERIFY_WITH_TIMEOUT(w.findChild<QAction*>("action-find-lr")->isEnabled(), 30000);
        LrFinderDialog* finder = w.showLrFinder();
        finder->setSweep(1e-4, 10.0, 40);
        QVERIFY(finder->start());
        QVERIFY(!w.findChild<QAction*>("action-train")->isEnabled()); // one thing trains
        QTRY_VERIFY_WITH_TIMEOUT(!finder->running(), 120000);
        QVERIFY2(finder->chart()->pointCount() > 5, qPrintable(finder->summary()));
        QVERIFY(w.findChild<QAction*>("action-train")->isEnabled());
        if (!finder->result().suggested)
            QSKIP(qPrintable("the tiny sweep found no descent to suggest: " + finder->summary()));
        QCOMPARE(finder->chart()->marked(), finder->result().suggested);
        QVERIFY(finder->applyButton()->isEnabled());
        finder->applyButton()->click();
        const double applied = w.setup().config().lr;
        QVERIFY2(std::abs(applied / *finder->result().suggested - 1.0) < 1e-5,
                 qPrintable(QString::number(applied)));
    }

    void batchFinderFindsTheLargestAndApplies() {
        MainWindow w(m_dir.filePath("runs.db"));
        RunConfig c = test::tinyRunConfig(m_dir.filePath("batch-find"), 1);
        c.set("model", "mlp");
        w.setup().setConfig(c);
        QTRY_VERIFY_WITH_TIMEOUT(w.findChild<QAction*>("action-find-batch")->isEnabled(), 30000);
        BatchFinderDialog* finder = w.showBatchFinder();
        finder->setSearch(0, 8, 32);
        QVERIFY(finder->start());
        QTRY_VERIFY_WITH_TIMEOUT(!finder->running(), 120000);
        QCOMPARE(finder->result().largest, std::optional<int64_t>(32));
        QCOMPARE(finder->tries()->rowCount(), 3); // 8, 16, 32
        QCOMPARE(finder->tries()->item(2, 0)->text(), QString("32"));
        finder->applyButton()->click();
        QCOMPARE(w.setup().config().batchSize, 32);
    }
};

QTEST_MAIN(TestTeaching)
#include "tst_teaching.moc"

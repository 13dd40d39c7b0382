// MainWindow: the panels wired to the run controller, the run store and the experiments; panels
// only receive data and emit what the user asked for (the actions are in mainwindowmenus.cpp).
#include "mainwindow.h"

#include "charts/chartspanel.h"
#include "charts/chartview.h"
#include "core/textformat.h"
#include "experiments/batchfinderdialog.h"
#include "experiments/experimentcontroller.h"
#include "experiments/lrfinderdialog.h"
#include "hardware/hardwarepanel.h"
#include "keyboard/focusring.h"
#include "keyboard/tabstops.h"
#include "learn/learnpanel.h"
#include "pagescrollarea.h"
#include "predictions/predictionspanel.h"
#include "profile/profilepanel.h"
#include "runcontroller.h"
#include "runs/comparisonview.h"
#include "runs/runsstore.h"
#include "runs/runstablemodel.h"
#include "runs/runsview.h"
#include "setup/columnscrollarea.h"
#include "setup/setuppanel.h"
#include "status/elidedlabel.h"
#include "status/failurebanner.h"
#include "status/logpanel.h"
#include "status/runprogress.h"
#include "sweeps/sweepcontroller.h"
#include "sweeps/sweeppanel.h"
#include "train/trainer.h"
#include "unixsignalwatcher.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QLabel>
#include <QMessageBox>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace tb::ui {

namespace {

// The set-up column: wide enough for the sample grid and the layer table, narrow enough to
// leave the charts room at 1280x800.
constexpr int kSetupMinWidth = 360;
constexpr int kSetupWidth = 420;
// The log starts five lines high: at 1280x800 the charts need every pixel.
constexpr int kLogHeight = 90;
constexpr int kChartsHeight = 600;

} // namespace

MainWindow::MainWindow(const QString& databasePath, QWidget* parent)
    : QMainWindow(parent), m_controller(new RunController(databasePath, {}, this)),
      m_experiments(new ExperimentController(databasePath, this)),
      m_sweeps(new SweepController(databasePath, this)), m_store(new RunsStore(databasePath, this)),
      m_setup(new SetupPanel), m_setupScroll(new ColumnScrollArea), m_charts(new ChartsPanel),
      m_hardware(new HardwarePanel), m_predictions(new PredictionsPanel),
      m_profile(new ProfilePanel(*m_controller)), m_learn(new LearnPanel), m_log(new LogPanel),
      m_runs(new RunsView(*m_store)), m_sweepPanel(new SweepPanel), m_progress(new RunProgress),
      m_banner(new FailureBanner), m_split(new QSplitter(Qt::Horizontal, this)),
      m_tabs(new QTabWidget), m_blocker(new ElidedLabel(480)), m_recording(new QLabel),
      m_databasePath(databasePath) {
    setWindowTitle(tr("TrainBench"));
    setObjectName(QStringLiteral("main-window"));

    m_setupScroll->setObjectName(QStringLiteral("setup-scroll"));
    m_setupScroll->setColumn(m_setup);
    m_setupScroll->setMinimumWidth(kSetupMinWidth);

    m_tabs->setObjectName(QStringLiteral("views"));
    m_charts->setObjectName(QStringLiteral("charts-panel"));
    m_runs->setObjectName(QStringLiteral("runs-view"));
    m_hardware->setObjectName(QStringLiteral("hardware-panel"));
    // Each page scrolls in a window smaller than its minimum instead of being squeezed.
    m_tabs->addTab(new PageScrollArea(m_charts), tr("Charts"));
    m_tabs->addTab(new PageScrollArea(m_predictions), tr("Predictions"));
    m_tabs->addTab(new PageScrollArea(m_profile), tr("Profile"));
    m_tabs->addTab(new PageScrollArea(m_runs), tr("Runs"));
    m_tabs->addTab(new PageScrollArea(m_sweepPanel), tr("Sweep"));
    m_tabs->addTab(new PageScrollArea(m_hardware), tr("Hardware"));
    m_tabs->addTab(new PageScrollArea(m_learn), tr("Learn"));
    auto* vertical = new QSplitter(Qt::Vertical);
    vertical->addWidget(m_tabs);
    vertical->addWidget(m_log);
    vertical->setStretchFactor(0, 1);
    vertical->setStretchFactor(1, 0);
    vertical->setSizes({kChartsHeight, kLogHeight}); // the log a few lines, the charts the rest
    auto* right = new QWidget;
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_banner);
    rightLayout->addWidget(vertical, 1);
    m_split->addWidget(m_setupScroll);
    m_split->addWidget(right);
    m_split->setStretchFactor(1, 1);
    m_split->setSizes({kSetupWidth, kSetupWidth * 2});
    m_split->setChildrenCollapsible(false);
    setCentralWidget(m_split);

    m_blocker->setObjectName(QStringLiteral("train-blocker"));
    m_blocker->setStyleSheet(QStringLiteral("color: #d13438;"));
    m_progress->setObjectName(QStringLiteral("run-status"));
    statusBar()->addWidget(m_progress, 1);
    m_recording->setObjectName(QStringLiteral("recording-status"));
    m_recording->setStyleSheet(QStringLiteral("color: #d13438;"));
    m_recording->hide();
    statusBar()->addPermanentWidget(m_recording);
    createActions();
    connectController();
    connectRuns();
    connectExperiments();
    connectSweeps();
    connectLearn();
    // Every chart the window holds reports the exports it could not write.
    for (ChartView* chart : findChildren<ChartView*>())
        connect(chart, &ChartView::exportFailed, this,
                [this](const QString& path, const QString& why) { reportWriteFailure(path, why); });
    m_setupScroll->setFocusPolicy(Qt::NoFocus); // its fields are the stops, not the frame
    new FocusRing(this); // a child of the window, following the focus from now on
    connect(m_setup, &SetupPanel::changed, this, &MainWindow::updateActions);
    connect(m_banner, &FailureBanner::retryRequested, this, &MainWindow::retryWith);
    m_hardware->setGpuStatus(m_controller->gpuStatus());
    restoreSettings();
    updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::connectController() {
    RunController* c = m_controller;
    connect(c, &RunController::stateChanged, this, &MainWindow::updateActions);
    connect(c, &RunController::runStarted, this, [this](const RunStartedEvent& e) {
        m_opening.clear(); // the live run takes the charts
        m_chartRunId = QString::fromStdString(e.runId);
        m_charts->beginRun(e);
        m_predictions->beginRun(m_chartRunId);
        m_profile->beginRun();
        m_progress->begin(e);
        m_log->addMessage(LogLevel::Info,
                          tr("run %1: %2 on %3")
                              .arg(QString::fromStdString(e.runId), QString::fromStdString(e.name),
                                   QString::fromStdString(e.device)));
    });
    connect(c, &RunController::stepsArrived, this, [this](const std::vector<StepEvent>& steps) {
        m_charts->addSteps(steps);
        m_progress->update(steps.back());
    });
    connect(c, &RunController::epochsArrived, this, [this](const std::vector<EpochEvent>& epochs) {
        m_charts->addEpochs(epochs);
        m_predictions->addEpochs(epochs);
        for (const EpochEvent& e : epochs)
            m_predictions->setCheckpoint(QString::fromStdString(e.checkpoint));
    });
    connect(c, &RunController::systemSamplesArrived, this,
            [this](const std::vector<SystemSample>& samples) {
                m_charts->addSystemSamples(samples);
                m_hardware->addSamples(samples);
            });
    connect(c, &RunController::logMessage, m_log, &LogPanel::addMessage);
    connect(c, &RunController::adviceArrived, m_log, &LogPanel::addAdvice);
    connect(c, &RunController::adviceArrived, m_charts, &ChartsPanel::addAdvice);
    connect(c, &RunController::runFinished, this, [this](const RunFinishedEvent& e) {
        m_progress->finish(e);
        m_predictions->setCheckpoint(QString::fromStdString(e.checkpoint));
        if (e.status == RunStatus::Failed) {
            m_log->addMessage(LogLevel::Error, QString::fromStdString(e.error));
            m_banner->showFailure(e);
            if (e.failure.kind == FailureKind::Backend)
                m_setup->refreshDevices(); // a lost GPU is greyed, with why, from now on
            // The config key the failure names gets the focus once the form is enabled again.
            m_focusAfterRun = QString::fromStdString(e.failure.subject);
        } else {
            m_log->addRunEnding(e, m_predictions->showsDetector(),
                                m_predictions->meanIoUOfEpoch(e.summary.bestEpoch));
        }
    });
    connect(c, &RunController::tick, m_charts, &ChartsPanel::replot);
    // A run whose rows wait for a locked or full store says so until they are written: in the
    // status bar while it waits, and in the banner with what it means for the run.
    connect(c, &RunController::recordingChanged, this,
            [this](const QString& runId, RecordingNotice::Kind kind, const QString& message) {
                const bool waiting = kind == RecordingNotice::Kind::Waiting;
                m_recording->setText(waiting ? tr("Run %1 waits to be recorded").arg(runId)
                                             : QString());
                m_recording->setToolTip(message);
                m_recording->setVisible(waiting);
                m_banner->showRecording(runId, kind, message);
            });
}

void MainWindow::connectRuns() {
    connect(m_runs, &RunsView::message, this,
            [this](const QString& text) { m_log->addMessage(LogLevel::Warning, text); });
    connect(m_runs, &RunsView::openRequested, this, [this](const QString& id) {
        if (m_controller->state() != RunController::State::Idle) {
            m_log->addMessage(LogLevel::Warning,
                              tr("The charts show the run training now; open %1 once it ends, "
                                 "or compare the two in the Runs tab.")
                                  .arg(id));
            return;
        }
        m_opening = id;
        m_store->load(id);
    });
    connect(m_store, &RunsStore::runLoaded, this,
            [this](const QString& id, std::shared_ptr<RunSeries> run) {
                if (id != m_opening)
                    return;
                m_opening.clear();
                showStoredRun(*run);
            });
    connect(m_store, &RunsStore::runRowsArrived, this,
            [this](const QString& id, const RunTailUpdate& u) {
                if (id != m_chartRunId || id == m_controller->currentRunId())
                    return; // the live run reaches the charts through the controller
                m_charts->addSteps(u.steps);
                m_charts->addEpochs(u.epochs);
                m_charts->addSystemSamples(u.samples);
                m_charts->replot();
            });
    connect(m_store, &RunsStore::runDeleted, this, [this](const QString& id) {
        if (id == m_opening)
            m_opening.clear();
    });
    connect(m_runs, &RunsView::useSetupRequested, this, [this](const QString& id) {
        const RunRecord* r = m_runs->model()->run(id);
        if (!r)
            return;
        try {
            m_setup->setConfig(RunConfig::fromJson(r->config));
            m_log->addMessage(LogLevel::Info, tr("set-up of run %1 loaded").arg(id));
        } catch (const std::exception& e) {
            m_log->addMessage(
                LogLevel::Warning,
                tr("The set-up of run %1 cannot be used: %2").arg(id, QString::fromUtf8(e.what())));
        }
    });
    connect(m_runs, &RunsView::resumeRequested, this, &MainWindow::resumeRun);
}

void MainWindow::connectExperiments() {
    connect(m_experiments, &ExperimentController::started, this,
            [this](const QString& title, int runs) {
                m_log->addMessage(
                    LogLevel::Info,
                    tr("experiment %1: %2, one after another")
                        .arg(title, QString::fromStdString(formatCountOf(runs, "short run"))));
                updateActions();
            });
    connect(m_experiments, &ExperimentController::dataChosen, this,
            [this](const QString& note) { m_log->addMessage(LogLevel::Info, note); });
    connect(m_experiments, &ExperimentController::repeatFinished, this,
            [this](const QString& arm, const QString& summary) {
                m_log->addMessage(LogLevel::Info, QStringLiteral("%1: %2").arg(arm, summary));
            });
    connect(
        m_experiments, &ExperimentController::finished, this,
        [this](const QString&, const QString& conclusion, bool stopped, const QStringList& runIds) {
            m_log->addMessage(stopped ? LogLevel::Warning : LogLevel::Info,
                              (stopped ? tr("experiment stopped: ") : tr("experiment: ")) +
                                  conclusion);
            compareInRuns(runIds, {}, m_compareGroupBy);
            updateActions();
        });
    connect(m_store, &RunsStore::runsListed, this, &MainWindow::compareWhenListed);
}

bool MainWindow::runExperiment(const ExperimentPreset& preset) {
    if (m_controller->state() != RunController::State::Idle || m_experiments->running() ||
        m_sweeps->running() || !m_setup->blocker().isEmpty())
        return false;
    QStringList keys;
    for (const ExperimentArm& arm : preset.arms)
        for (const auto& [key, value] : arm.set)
            if (!keys.contains(QString::fromStdString(key)))
                keys << QString::fromStdString(key);
    m_compareGroupBy = keys.join(QLatin1Char(','));
    m_banner->hide();
    return m_experiments->start(preset, m_setup->config());
}

void MainWindow::compareInRuns(const QStringList& runIds, const QString& tag,
                               const QString& groupBy) {
    m_runsToCompare = runIds;
    m_compareTag = tag;
    m_compareGroupBy = groupBy;
    showTab(m_runs);
    m_store->list();
    compareWhenListed();
}

void MainWindow::compareWhenListed() {
    if (m_runsToCompare.isEmpty())
        return;
    for (const QString& id : m_runsToCompare)
        if (!m_runs->model()->run(id))
            return; // the next listing, then
    m_runs->showTag(m_compareTag);
    m_runs->selectRuns(m_runsToCompare);
    m_runs->comparisonView()->setGroupBy(m_compareGroupBy);
    m_runsToCompare.clear();
}

void MainWindow::showStoredRun(const RunSeries& run) {
    const RunRecord& r = run.record();
    m_chartRunId = QString::fromStdString(r.id);
    m_charts->beginRun(run.startedEvent(), r.startedAt);
    m_charts->addSteps(run.steps());
    m_charts->addEpochs(run.epochs());
    m_charts->addSystemSamples(run.samples());
    for (const AdviceEvent& advice : run.advice())
        m_charts->addAdvice(advice);
    m_charts->replot();
    m_predictions->beginRun(m_chartRunId);
    m_predictions->addEpochs(run.epochs());
    m_predictions->setCheckpoint(QString::fromStdString(r.checkpoint));
    m_profile->showStoredRun(m_chartRunId, QString::fromStdString(r.checkpoint));
    showTab(m_charts);
    if (r.status == RunStatus::Running)
        m_store->follow(m_chartRunId); // written by another process: drawn as it lands
    m_log->addMessage(LogLevel::Info,
                      tr("showing run %1 (%2, %3 steps)")
                          .arg(m_chartRunId, QString::fromStdString(toString(r.status)))
                          .arg(r.steps));
}

void MainWindow::resumeRun(const QString& runId) {
    const RunRecord* r = m_runs->model()->run(runId);
    if (!r || m_controller->state() != RunController::State::Idle)
        return;
    try {
        const RunConfig config = Trainer::configFromCheckpoint(r->checkpoint);
        m_banner->hide();
        showTab(m_charts);
        m_controller->start(config, QString::fromStdString(r->checkpoint), runId);
    } catch (const std::exception& e) {
        m_log->addMessage(
            LogLevel::Error,
            tr("Run %1 cannot be resumed: %2").arg(runId, QString::fromUtf8(e.what())));
    }
}

bool MainWindow::train() {
    if (m_controller->state() != RunController::State::Idle || !m_setup->blocker().isEmpty())
        return false;
    m_banner->hide();
    return m_controller->start(m_setup->config());
}

void MainWindow::retryWith(const std::vector<std::pair<std::string, std::string>>& changes) {
    RunConfig config = m_setup->config();
    for (const auto& [key, value] : changes)
        config.set(key, value); // the engine's own suggestion: valid by construction
    m_setup->setConfig(config);
    m_trainWhenReady = true; // the set-up panel reopens the dataset first
    updateActions();
}

void MainWindow::updateActions() {
    using State = RunController::State;
    const State state = m_controller->state();
    const QString blocker = m_setup->blocker();
    if (m_trainWhenReady && state == State::Idle && !m_setup->busy()) {
        m_trainWhenReady = false;
        if (train())
            return; // start() changed the state, which updated the actions
    }
    // One thing trains at a time: a run, an experiment or a finder's sweep.
    const bool experimenting = m_experiments->running() || m_sweeps->running() ||
                               (m_lrFinder && m_lrFinder->running()) ||
                               (m_batchFinder && m_batchFinder->running());
    const bool canTrain = state == State::Idle && blocker.isEmpty() && !experimenting;
    m_train->setEnabled(canTrain);
    for (QAction* a : m_experimentActions + m_finderActions)
        a->setEnabled(canTrain);
    m_sweepAction->setEnabled(canTrain);
    if (m_lrFinder)
        m_lrFinder->setCanStart(canTrain);
    if (m_batchFinder)
        m_batchFinder->setCanStart(canTrain);
    m_pause->setEnabled((state == State::Running && m_controller->canPause()) ||
                        state == State::Paused);
    m_pause->setText(state == State::Paused ? tr("&Resume") : tr("&Pause"));
    m_stop->setEnabled(state == State::Running || state == State::Paused || experimenting);
    m_setup->setEnabled(state == State::Idle && !experimenting);
    if (state == State::Idle && !m_focusAfterRun.isEmpty()) {
        if (QWidget* editor = m_setup->editorOf(m_focusAfterRun)) {
            m_setupScroll->ensureWidgetVisible(editor);
            editor->setFocus();
        }
        m_focusAfterRun.clear();
    }
    m_blocker->setFullText(state == State::Idle ? blocker : QString());
    static const char* const kStateNames[] = {"Ready", "Training", "Paused", "Stopping"};
    m_progress->setStateText(tr(kStateNames[static_cast<int>(state)]));
}

void MainWindow::restoreSettings() {
    QSettings settings;
    // 1280x800 the first time, the last size after that; never more than the screen offers
    // (a 1024x700 laptop panel, a geometry saved on a larger monitor).
    const QRect available = screen()->availableGeometry();
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        resize(1280, 800);
    if (width() > available.width() || height() > available.height()) {
        resize(std::min(width(), available.width()), std::min(height(), available.height()));
        move(available.topLeft());
    }
    m_split->restoreState(settings.value(QStringLiteral("window/split")).toByteArray());
    const QByteArray saved = settings.value(QStringLiteral("run/config")).toByteArray();
    if (saved.isEmpty())
        return;
    try {
        m_setup->setConfig(RunConfig::fromJson(nlohmann::json::parse(saved.toStdString())));
    } catch (const std::exception& e) {
        m_log->addMessage(LogLevel::Warning,
                          tr("The last configuration could not be restored (%1); the defaults "
                             "are shown.")
                              .arg(QString::fromUtf8(e.what())));
    }
}

void MainWindow::saveSettings() {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/split"), m_split->saveState());
    settings.setValue(QStringLiteral("run/config"),
                      QByteArray::fromStdString(m_setup->config().toJson().dump()));
    settings.sync();
    if (settings.status() != QSettings::NoError)
        reportWriteFailure(settings.fileName(),
                           settings.status() == QSettings::AccessError
                               ? tr("the settings file or its folder is not writable")
                               : tr("the settings file is malformed"),
                           true);
}

void MainWindow::reportWriteFailure(const QString& path, const QString& reason, bool wait) {
    const QString text = tr("Could not write %1: %2").arg(QDir::toNativeSeparators(path), reason);
    m_log->addMessage(LogLevel::Error, text);
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Could not write a file"), text,
                                QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("write-failed"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    if (wait)
        box->exec(); // the window is closing: it must not go before the user has read this
    else
        box->open(); // window-modal without a nested event loop: training ticks go on
}

// The regions Tab walks, in the order the window reads: the set-up column, the tool bar, the
// failure banner, the tab bar, the current tab and the log.
QList<QWidget*> MainWindow::tabStops() const {
    QList<QWidget*> stops;
    for (QWidget* region : {static_cast<QWidget*>(m_setupScroll), static_cast<QWidget*>(m_toolBar),
                            static_cast<QWidget*>(m_banner)})
        stops << tabStopsIn(region);
    if (isTabStop(m_tabs->tabBar()))
        stops << m_tabs->tabBar();
    stops << tabStopsIn(m_tabs->currentWidget()) << tabStopsIn(m_log);
    return stops;
}

bool MainWindow::focusNextPrevChild(bool next) {
    QWidget* to = nextTabStop(tabStops(), QApplication::focusWidget(), next);
    if (!to)
        return QMainWindow::focusNextPrevChild(next);
    if (m_setupScroll->isAncestorOf(to))
        m_setupScroll->ensureWidgetVisible(to);
    to->setFocus(next ? Qt::TabFocusReason : Qt::BacktabFocusReason);
    return true;
}

void MainWindow::showTab(QWidget* page) {
    for (int i = 0; i < m_tabs->count(); ++i)
        if (static_cast<QScrollArea*>(m_tabs->widget(i))->widget() == page)
            m_tabs->setCurrentIndex(i);
}

void MainWindow::quitOnSignal(int signal, int count) {
    const QString name = UnixSignalWatcher::name(signal);
    const bool training = m_controller->state() != RunController::State::Idle ||
                          m_experiments->running() || m_sweeps->running();
    if (count > 1) {
        std::fprintf(stderr, "trainbench: %s again: quitting at once%s\n", qPrintable(name),
                     training ? "; the run keeps no checkpoint of the steps since its last one and "
                                "is marked interrupted when TrainBench opens next"
                              : "");
        std::_Exit(128 + signal);
    }
    const QString what = training ? tr("%1: stopping the run after its current step, saving a "
                                       "checkpoint, then quitting (send it again to quit at once)")
                                        .arg(name)
                                  : tr("%1: quitting").arg(name);
    std::fprintf(stderr, "trainbench: %s\n", qPrintable(what));
    m_log->addMessage(LogLevel::Warning, what);
    close(); // what Quit does; the controller's destructor then waits for the step
    QApplication::exit(128 + signal);
}

void MainWindow::finishRunsNow() {
    m_controller->finishAll();
    m_experiments->finish();
    m_sweeps->finish();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveSettings();
    m_controller->stop(); // the controller's destructor waits for the step in progress
    m_experiments->stop();
    m_sweeps->stop();
    event->accept();
}

} // namespace tb::ui

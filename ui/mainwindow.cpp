// MainWindow: actions are created once here (menu, tool bar and shortcuts share them); panels
// only receive data from the controller and emit what the user asked for.
#include "mainwindow.h"

#include "charts/chartspanel.h"
#include "hardware/hardwarepanel.h"
#include "runcontroller.h"
#include "setup/setuppanel.h"
#include "status/failurebanner.h"
#include "status/logpanel.h"
#include "status/runprogress.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QLabel>
#include <QMenuBar>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>

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
      m_setup(new SetupPanel), m_setupScroll(new QScrollArea), m_charts(new ChartsPanel),
      m_hardware(new HardwarePanel), m_log(new LogPanel), m_progress(new RunProgress),
      m_banner(new FailureBanner), m_split(new QSplitter(Qt::Horizontal, this)),
      m_tabs(new QTabWidget), m_blocker(new QLabel) {
    setWindowTitle(tr("TrainBench"));
    setObjectName(QStringLiteral("main-window"));

    m_setupScroll->setObjectName(QStringLiteral("setup-scroll"));
    m_setupScroll->setWidget(m_setup);
    m_setupScroll->setWidgetResizable(true);
    m_setupScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_setupScroll->setMinimumWidth(kSetupMinWidth);

    m_tabs->setObjectName(QStringLiteral("views"));
    m_tabs->addTab(m_charts, tr("Charts"));
    m_tabs->addTab(m_hardware, tr("Hardware"));
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
    createActions();
    connectController();
    connect(m_setup, &SetupPanel::changed, this, &MainWindow::updateActions);
    connect(m_banner, &FailureBanner::retryRequested, this, &MainWindow::retryWith);
    m_hardware->setGpuStatus(m_controller->gpuStatus());
    restoreSettings();
    updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions() {
    m_train = new QAction(tr("&Train"), this);
    m_train->setObjectName(QStringLiteral("action-train"));
    m_train->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_train->setToolTip(tr("Train with this configuration (Ctrl+Return)"));
    connect(m_train, &QAction::triggered, this, &MainWindow::train);

    m_pause = new QAction(tr("&Pause"), this);
    m_pause->setObjectName(QStringLiteral("action-pause"));
    m_pause->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    m_pause->setToolTip(tr("Pause after the current step (Ctrl+P); press again to resume"));
    connect(m_pause, &QAction::triggered, this, [this] {
        if (m_controller->state() == RunController::State::Paused)
            m_controller->resume();
        else
            m_controller->pause();
    });

    m_stop = new QAction(tr("&Stop"), this);
    m_stop->setObjectName(QStringLiteral("action-stop"));
    m_stop->setShortcut(QKeySequence(Qt::Key_Escape));
    m_stop->setToolTip(tr("Stop after the current step and save a checkpoint (Esc)"));
    connect(m_stop, &QAction::triggered, m_controller, &RunController::stop);

    auto* quit = new QAction(tr("&Quit"), this);
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(m_train);
    run->addAction(m_pause);
    run->addAction(m_stop);
    run->addSeparator();
    run->addAction(quit);

    QToolBar* bar = addToolBar(tr("Run"));
    bar->setObjectName(QStringLiteral("run-toolbar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(m_train);
    bar->addAction(m_pause);
    bar->addAction(m_stop);
    bar->addSeparator();
    bar->addWidget(m_blocker);
}

void MainWindow::connectController() {
    RunController* c = m_controller;
    connect(c, &RunController::stateChanged, this, &MainWindow::updateActions);
    connect(c, &RunController::runStarted, this, [this](const RunStartedEvent& e) {
        m_charts->beginRun(e);
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
    connect(c, &RunController::epochsArrived, m_charts, &ChartsPanel::addEpochs);
    connect(c, &RunController::systemSamplesArrived, this,
            [this](const std::vector<SystemSample>& samples) {
                m_charts->addSystemSamples(samples);
                m_hardware->addSamples(samples);
            });
    connect(c, &RunController::logMessage, m_log, &LogPanel::addMessage);
    connect(c, &RunController::adviceArrived, m_log, &LogPanel::addAdvice);
    connect(c, &RunController::runFinished, this, [this](const RunFinishedEvent& e) {
        m_progress->finish(e);
        if (e.status == RunStatus::Failed) {
            m_log->addMessage(LogLevel::Error, QString::fromStdString(e.error));
            m_banner->showFailure(e);
            // The config key the failure names gets the focus once the form is enabled again.
            m_focusAfterRun = QString::fromStdString(e.failure.subject);
        } else {
            m_log->addMessage(LogLevel::Info, tr("run %1; best validation accuracy %2% at epoch %3")
                                                  .arg(QString::fromStdString(toString(e.status)))
                                                  .arg(e.summary.bestValAcc * 100.0, 0, 'f', 2)
                                                  .arg(e.summary.bestEpoch));
        }
    });
    connect(c, &RunController::tick, m_charts, &ChartsPanel::replot);
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
    m_train->setEnabled(state == State::Idle && blocker.isEmpty());
    m_pause->setEnabled(state == State::Running || state == State::Paused);
    m_pause->setText(state == State::Paused ? tr("&Resume") : tr("&Pause"));
    m_stop->setEnabled(state == State::Running || state == State::Paused);
    m_setup->setEnabled(state == State::Idle);
    if (state == State::Idle && !m_focusAfterRun.isEmpty()) {
        if (QWidget* editor = m_setup->editorOf(m_focusAfterRun)) {
            m_setupScroll->ensureWidgetVisible(editor);
            editor->setFocus();
        }
        m_focusAfterRun.clear();
    }
    m_blocker->setText(state == State::Idle ? blocker : QString());
    m_blocker->setToolTip(m_blocker->text());
    static const char* const kStateNames[] = {"Ready", "Training", "Paused", "Stopping"};
    m_progress->setStateText(tr(kStateNames[static_cast<int>(state)]));
}

void MainWindow::restoreSettings() {
    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        resize(1280, 800);
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

void MainWindow::saveSettings() const {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/split"), m_split->saveState());
    settings.setValue(QStringLiteral("run/config"),
                      QByteArray::fromStdString(m_setup->config().toJson().dump()));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveSettings();
    m_controller->stop(); // the controller's destructor waits for the step in progress
    event->accept();
}

} // namespace tb::ui

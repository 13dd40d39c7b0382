// MainWindow's menus and tool bar: every action is created once here and shared by the menus,
// the tool bar and the shortcuts; and the commands only the menus start (Export Charts, About).
#include "mainwindow.h"

#include "charts/chartspanel.h"
#include "charts/chartview.h"
#include "concepts/conceptcards.h"
#include "experiments/experimentcontroller.h"
#include "help/helpwindow.h"
#include "predictions/exportmodeldialog.h"
#include "predictions/predictionspanel.h"
#include "runcontroller.h"
#include "runs/runsview.h"
#include "setup/columnscrollarea.h"
#include "setup/setuppanel.h"
#include "status/elidedlabel.h"
#include "status/logpanel.h"
#include "store/sqlitedb.h"
#include "sweeps/sweepcontroller.h"
#include "telemetry/doctorreport.h"
#include "themeicon.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QTabWidget>
#include <QToolBar>

#include <iterator>

namespace tb::ui {

void MainWindow::createActions() {
    m_train = new QAction(themeIcon(QStringLiteral("media-playback-start")), tr("&Train"), this);
    m_train->setObjectName(QStringLiteral("action-train"));
    m_train->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_train->setToolTip(tr("Train with this configuration (Ctrl+Return)"));
    connect(m_train, &QAction::triggered, this, &MainWindow::train);

    m_pause = new QAction(themeIcon(QStringLiteral("media-playback-pause")), tr("&Pause"), this);
    m_pause->setObjectName(QStringLiteral("action-pause"));
    m_pause->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    m_pause->setToolTip(tr("Pause after the current step (Ctrl+P); press again to resume"));
    connect(m_pause, &QAction::triggered, this, [this] {
        if (m_controller->state() == RunController::State::Paused)
            m_controller->resume();
        else
            m_controller->pause();
    });

    m_stop = new QAction(themeIcon(QStringLiteral("media-playback-stop")), tr("&Stop"), this);
    m_stop->setObjectName(QStringLiteral("action-stop"));
    m_stop->setShortcut(QKeySequence(Qt::Key_Escape));
    m_stop->setToolTip(tr("Stop after the current step and save a checkpoint (Esc)"));
    connect(m_stop, &QAction::triggered, m_controller, &RunController::stop);
    connect(m_stop, &QAction::triggered, m_experiments, &ExperimentController::stop);
    connect(m_stop, &QAction::triggered, m_sweeps, &SweepController::stop);

    QToolBar* bar = addToolBar(tr("Run"));
    bar->setObjectName(QStringLiteral("run-toolbar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(m_train);
    bar->addAction(m_pause);
    bar->addAction(m_stop);
    bar->addSeparator();
    bar->addWidget(m_blocker);
    // Tool bars keep their buttons out of the Tab chain; the keyboard-only user needs them.
    for (QAction* a : {m_train, m_pause, m_stop})
        bar->widgetForAction(a)->setFocusPolicy(Qt::TabFocus);
    m_toolBar = bar;

    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->setObjectName(QStringLiteral("menu-file"));
    const QList<QAction*> opens = m_setup->openActions();
    opens[0]->setShortcut(QKeySequence::Open);
    opens[0]->setIcon(themeIcon(QStringLiteral("document-open")));
    file->addActions(opens);
    file->addSeparator();
    QAction* exportCharts =
        file->addAction(themeIcon(QStringLiteral("document-save-as")), tr("&Export Charts..."),
                        this, &MainWindow::exportChartsToFolder);
    exportCharts->setObjectName(QStringLiteral("action-export-charts"));
    exportCharts->setShortcut(QKeySequence::SaveAs);
    exportCharts->setToolTip(tr("Every training chart as PNG and CSV into a folder"));
    QAction* exportModel = file->addAction(tr("Export &Model..."), this, &MainWindow::exportModel);
    exportModel->setObjectName(QStringLiteral("action-export-model"));
    exportModel->setToolTip(tr("The shown run's model as ONNX or PyTorch weights"));
    exportModel->setEnabled(!m_predictions->checkpoint().isEmpty());
    connect(m_predictions, &PredictionsPanel::checkpointChanged, exportModel,
            [exportModel](const QString& path) { exportModel->setEnabled(!path.isEmpty()); });
    file->addSeparator();
    auto* view = new QMenu(tr("&View"), this); // on the bar after Edit; lesson mode is in it
    addLessonActions(file, view);
    file->addSeparator();
    QAction* quit = file->addAction(themeIcon(QStringLiteral("application-exit")), tr("&Quit"),
                                    this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->setObjectName(QStringLiteral("menu-edit"));
    edit->addActions(m_runs->editActions());

    menuBar()->addMenu(view);
    view->setObjectName(QStringLiteral("menu-view"));
    const auto panelToggle = [this, view](const QString& text, QWidget* panel,
                                          const QString& name) {
        QAction* a = view->addAction(text);
        a->setObjectName(name);
        a->setCheckable(true);
        a->setChecked(true);
        connect(a, &QAction::toggled, panel, &QWidget::setVisible);
    };
    panelToggle(tr("&Set-up Column"), m_setupScroll, QStringLiteral("view-setup"));
    panelToggle(tr("&Log"), m_log, QStringLiteral("view-log"));
    QAction* showBar = m_toolBar->toggleViewAction();
    showBar->setText(tr("&Tool Bar"));
    view->addAction(showBar);
    const char* const tabNames[] = {QT_TR_NOOP("&Charts"), QT_TR_NOOP("&Predictions"),
                                    QT_TR_NOOP("&Runs"), QT_TR_NOOP("&Hardware"),
                                    QT_TR_NOOP("&Learn")};
    Q_ASSERT(m_tabs->count() == static_cast<int>(std::size(tabNames)));
    view->addSeparator();
    for (int i = 0; i < m_tabs->count(); ++i) {
        QAction* a = view->addAction(tr(tabNames[i]), this, [this, i] {
            m_tabs->setCurrentIndex(i);
            m_tabs->currentWidget()->setFocus(Qt::ShortcutFocusReason);
        });
        a->setShortcut(QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)));
    }
    view->addSeparator();
    QAction* fitAll = view->addAction(themeIcon(QStringLiteral("zoom-fit-best")),
                                      tr("&Fit All Charts"), this, [this] {
                                          for (ChartView* chart : m_charts->charts())
                                              chart->fit();
                                      });
    fitAll->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    QAction* fullScreen = view->addAction(tr("F&ull Screen"), this, [this](bool on) {
        setWindowState(on ? windowState() | Qt::WindowFullScreen
                          : windowState() & ~Qt::WindowFullScreen);
    });
    fullScreen->setCheckable(true);
    fullScreen->setShortcut(QKeySequence::FullScreen);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->setObjectName(QStringLiteral("menu-run"));
    run->addAction(m_train);
    run->addAction(m_pause);
    run->addAction(m_stop);
    run->addSeparator();
    QMenu* experiments = run->addMenu(tr("&Experiments"));
    experiments->setObjectName(QStringLiteral("menu-experiments"));
    experiments->setToolTipsVisible(true);
    for (const ExperimentPreset& preset : builtinExperiments()) {
        QAction* a = experiments->addAction(QString::fromStdString(preset.title), this,
                                            [this, preset] { runExperiment(preset); });
        a->setObjectName(QStringLiteral("experiment-") + QString::fromStdString(preset.id));
        a->setToolTip(QString::fromStdString(preset.question));
        m_experimentActions << a;
    }
    m_sweepAction = run->addAction(tr("S&weep..."), this, &MainWindow::showSweepDialog);
    m_sweepAction->setObjectName(QStringLiteral("action-sweep"));
    m_sweepAction->setToolTip(tr("Try many settings of the set-up, one run each, and see which "
                                 "mattered"));
    addFinderActions(run);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName(QStringLiteral("menu-help"));
    QAction* guide = help->addAction(themeIcon(QStringLiteral("help-contents")), tr("&User Guide"),
                                     this, [this] { showHelp(QStringLiteral("user-guide.md")); });
    guide->setObjectName(QStringLiteral("action-user-guide"));
    guide->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&Teaching Guide"), this,
                    [this] { showHelp(QStringLiteral("teaching.md")); });
    help->addAction(tr("&Developer Guide"), this,
                    [this] { showHelp(QStringLiteral("developer-guide.md")); });
    help->addSeparator();
    QMenu* cards = help->addMenu(tr("&Concepts"));
    for (const ConceptCard& card : conceptCards())
        cards->addAction(card.title, this, [this, id = card.id] { showConceptCard(this, id); });
    help->addSeparator();
    help->addAction(themeIcon(QStringLiteral("help-about")), tr("&About TrainBench"), this,
                    &MainWindow::showAbout);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::showHelp(const QString& file) {
    if (!m_help)
        m_help = new HelpWindow(this);
    m_help->showDocument(file);
    m_help->show();
    m_help->raise();
    m_help->activateWindow();
}

void MainWindow::exportChartsToFolder() {
    const QString folder =
        QFileDialog::getExistingDirectory(this, tr("Export the training charts into a folder"));
    if (!folder.isEmpty())
        exportCharts(folder);
}

ExportModelDialog* MainWindow::exportModel() {
    auto* dialog = new ExportModelDialog(m_predictions->checkpoint(), m_predictions->runId(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ExportModelDialog::exported, this, [this](const QString& summary) {
        m_log->addMessage(LogLevel::Info, summary.section('\n', 0, 0));
    });
    dialog->show();
    return dialog;
}

int MainWindow::exportCharts(const QString& folder) {
    int written = 0;
    for (ChartView* chart : m_charts->charts()) {
        if (chart->isHidden())
            continue; // the loss-scale chart outside 16-mixed
        const QString base = QDir(folder).filePath(chart->title().toLower().replace(' ', '-'));
        // Stop at the first failure: the same folder fails the same way for the rest.
        if (!chart->exportPng(base + QStringLiteral(".png")) ||
            !chart->exportCsv(base + QStringLiteral(".csv")))
            return written;
        written += 2;
    }
    m_log->addMessage(
        LogLevel::Info,
        tr("%1 chart files written to %2").arg(written).arg(QDir::toNativeSeparators(folder)));
    return written;
}

void MainWindow::showAbout() {
    QString rows;
    const auto row = [&rows](const QString& label, const QString& value) {
        rows += QStringLiteral("<tr><td>%1</td><td>%2</td></tr>")
                    .arg(label.toHtmlEscaped(), value.toHtmlEscaped());
    };
    row(tr("Qt"), tr("%1 (built with %2)")
                      .arg(QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR)));
    row(tr("SQLite"), QString::fromStdString(sqliteVersion()));
    for (const DoctorRow& r : doctorReportOfThisMachine())
        if (r.label == "oneDNN" || r.label == "driver" || r.label == "CUDA" || r.label == "cuDNN" ||
            r.label == "cuBLAS" || r.label == "NCCL")
            row(QString::fromStdString(r.label), QString::fromStdString(r.value));
    QMessageBox box(QMessageBox::NoIcon, tr("About TrainBench"),
                    tr("<h3>TrainBench %1</h3><p>Train neural networks on a GPU workstation "
                       "and watch them learn.</p><table>%2</table>")
                        .arg(QApplication::applicationVersion(), rows),
                    QMessageBox::Ok, this);
    box.setObjectName(QStringLiteral("about"));
    box.setIconPixmap(windowIcon().pixmap(64, 64));
    box.exec();
}

} // namespace tb::ui

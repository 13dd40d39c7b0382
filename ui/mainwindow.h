// MainWindow: wires the panels to the run controller and the run store. Set-up on the left; the
// Charts, Runs and Hardware tabs and the log on the right; File, Edit, View, Run and Help menus
// and the run controls in the tool bar. Tab walks it in reading order; every file it writes
// reports a failure where the user looks. It keeps no training logic itself.
#pragma once

#include "store/runseries.h"
#include "train/runconfig.h"

#include <QMainWindow>

class QAction;
class QLabel;
class QScrollArea;
class QSplitter;
class QTabWidget;
class QToolBar;

namespace tb {
struct ExperimentPreset;
}

namespace tb::ui {

class ChartsPanel;
class ExperimentController;
class FailureBanner;
class RunsStore;
class RunsView;
class HardwarePanel;
class LogPanel;
class RunController;
class RunProgress;
class SetupPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // databasePath: the run store every run is recorded in (the CLI's by default).
    explicit MainWindow(const QString& databasePath, QWidget* parent = nullptr);
    ~MainWindow() override;

    RunController& controller() { return *m_controller; }
    SetupPanel& setup() { return *m_setup; }
    RunsView& runs() { return *m_runs; }
    ChartsPanel& charts() { return *m_charts; }
    // The run the training charts show: the one training now, or one opened from the Runs tab.
    QString chartRunId() const { return m_chartRunId; }

    // Starts a run with the set-up panel's config; false when it cannot (see the blocker text).
    bool train();
    // Every training chart as PNG and CSV into `folder` (File > Export Charts); the number of
    // files written. A failure is reported (reportWriteFailure) and ends the export.
    int exportCharts(const QString& folder);
    // Runs an experiment preset on the set-up column's config (Run > Experiments); false while
    // a run or another experiment trains, or the set-up cannot train. When it ends, its runs
    // are compared in the Runs tab, grouped by the keys its arms set.
    bool runExperiment(const ExperimentPreset& preset);
    ExperimentController& experiments() { return *m_experiments; }
    // The Tab stops in the order Tab visits them now.
    QList<QWidget*> tabStops() const;

protected:
    void closeEvent(QCloseEvent* event) override;
    // Tab walks tabStops(), cycling, whatever order the widgets were created in.
    bool focusNextPrevChild(bool next) override;

private:
    void createActions();
    void connectController();
    void updateActions();
    void restoreSettings();
    void saveSettings();
    // A file the window wrote failed: a message box naming the path and the reason, and a log
    // line (never only stderr). With `wait`, the box is modal until closed (on closing).
    void reportWriteFailure(const QString& path, const QString& reason, bool wait = false);
    void exportChartsToFolder();
    void showAbout();
    void retryWith(const std::vector<std::pair<std::string, std::string>>& changes);
    void connectRuns();
    void connectExperiments();
    // Selects the runs an experiment recorded once the Runs tab lists them all.
    void compareWhenListed();
    // Shows a recorded run in the training charts as they drew it live.
    void showStoredRun(const RunSeries& run);
    void resumeRun(const QString& runId);

    RunController* m_controller;
    ExperimentController* m_experiments;
    RunsStore* m_store;
    SetupPanel* m_setup;
    QScrollArea* m_setupScroll;
    ChartsPanel* m_charts;
    HardwarePanel* m_hardware;
    LogPanel* m_log;
    RunsView* m_runs;
    RunProgress* m_progress;
    FailureBanner* m_banner;
    QSplitter* m_split;
    QTabWidget* m_tabs;
    QLabel* m_blocker;
    QLabel* m_recording; // "Run X waits to be recorded" while its store is locked or full
    QAction* m_train = nullptr;
    QAction* m_pause = nullptr;
    QAction* m_stop = nullptr;
    QList<QAction*> m_experimentActions; // Run > Experiments, one per preset
    QToolBar* m_toolBar = nullptr;
    bool m_trainWhenReady = false; // a retry waits for the set-up panel to settle
    QString m_focusAfterRun;       // the config key a failed run named
    QString m_chartRunId;          // the run in the training charts
    QString m_opening;             // a run asked to be opened, while it loads
    QStringList m_experimentRuns;  // an ended experiment's runs, until the Runs tab lists them
    QString m_experimentGroupBy;   // the keys its arms set
};

} // namespace tb::ui

// MainWindow: wires the panels to the run controller and the run store. Set-up on the left; the
// Charts, Predictions, Runs, Hardware and Learn tabs and the log on the right; File, Edit, View,
// Run and Help menus and the run controls in the tool bar. Tab walks it in reading order; every
// file it writes reports a failure where the user looks. It keeps no training logic itself.
#pragma once

#include "experiments/sweepdefinition.h"
#include "store/runseries.h"
#include "train/runconfig.h"

#include <QMainWindow>

class QAction;
class QLabel;
class QMenu;
class QSplitter;
class QTabWidget;
class QToolBar;

namespace tb {
struct ExperimentPreset;
struct Lesson;
} // namespace tb

namespace tb::ui {

class BatchFinderDialog;
class ChartsPanel;
class ColumnScrollArea;
class ElidedLabel;
class ExperimentController;
class ExportModelDialog;
class FailureBanner;
class HelpWindow;
class RunsStore;
class RunsView;
class HardwarePanel;
class LearnPanel;
class LlmMemoryDialog;
class LrFinderDialog;
class PredictionsPanel;
class ProfilePanel;
class LogPanel;
class RunController;
class RunProgress;
class SetupPanel;
class SweepController;
class SweepDialog;
class SweepPanel;

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
    // File > Export Model: the dialog for the shown run's newest checkpoint (it deletes itself
    // when closed).
    ExportModelDialog* exportModel();
    // Runs an experiment preset on the set-up column's config (Run > Experiments); false while
    // a run or another experiment trains, or the set-up cannot train. When it ends, its runs
    // are compared in the Runs tab, grouped by the keys its arms set.
    bool runExperiment(const ExperimentPreset& preset);
    ExperimentController& experiments() { return *m_experiments; }
    PredictionsPanel& predictions() { return *m_predictions; }
    ProfilePanel& profile() { return *m_profile; }
    LearnPanel& learn() { return *m_learn; }
    // Makes `page` (a panel, in its scroll area) the current tab.
    void showTab(QWidget* page);

    // Opens a lesson (File > Lessons): its set-up in the set-up column, lesson mode (only its
    // controls shown) and the lesson in the Learn tab. `folder` holds the lesson's file, for
    // experiments it names by file ("" for a built-in lesson).
    void openLesson(const Lesson& lesson, const QString& folder = {});
    // A teacher's lesson file; false, with a message naming the file and the key, when it
    // cannot be used.
    bool openLessonFile(const QString& path);
    // Ends lesson mode: every control is shown again.
    void leaveLesson();
    // A built-in preset by id or a preset file by path (a lesson's or a card's experiment).
    bool runExperimentNamed(const QString& idOrPath);
    // Run > Find Learning Rate and Find Batch Size: the dialogs, made on first use and shown.
    LrFinderDialog* showLrFinder();
    // Run > Language Model Memory...: the what-if calculator (train/llmmemory.h).
    LlmMemoryDialog* showLlmMemory();
    BatchFinderDialog* showBatchFinder();
    // Run > Sweep...: the dialog on the set-up column's config (modal to the window; it starts
    // the sweep when accepted and deletes itself when closed).
    SweepDialog* showSweepDialog();
    // Starts a sweep (its trials in the Sweep tab, the runs compared in the Runs tab when it
    // ends); false while anything else trains.
    bool startSweep(const SweepDefinition& sweep, int parallel);
    SweepController& sweeps() { return *m_sweeps; }
    SweepPanel& sweepPanel() { return *m_sweepPanel; }
    // The Tab stops in the order Tab visits them now.
    QList<QWidget*> tabStops() const;

    // SIGTERM, SIGINT or SIGHUP (app/gui/main.cpp watches them): the first does what Quit does,
    // stopping a run after its current step with a checkpoint, then leaves the event loop with
    // 128 + signal; a second quits at once, saying on stderr what was not saved.
    void quitOnSignal(int signal, int count);
    // Stops what trains and waits until it is recorded, without the event loop: for an exit
    // that does not go through close() (Qt ends the process when the display goes away).
    void finishRunsNow();

protected:
    void closeEvent(QCloseEvent* event) override;
    // Tab walks tabStops(), cycling, whatever order the widgets were created in.
    bool focusNextPrevChild(bool next) override;

private:
    void createActions();
    // mainwindowteaching.cpp: File > Lessons, View > Lesson Mode, Run > Find ...
    void addLessonActions(QMenu* file, QMenu* view);
    void addFinderActions(QMenu* run);
    void connectLearn();
    void connectController();
    void updateActions();
    void restoreSettings();
    void saveSettings();
    // A file the window wrote failed: a message box naming the path and the reason, and a log
    // line (never only stderr). With `wait`, the box is modal until closed (on closing).
    void reportWriteFailure(const QString& path, const QString& reason, bool wait = false);
    void exportChartsToFolder();
    void showAbout();
    // The Help window at a guide ("user-guide.md"), made on first use.
    void showHelp(const QString& file);
    void retryWith(const std::vector<std::pair<std::string, std::string>>& changes);
    void connectRuns();
    void connectExperiments();
    // mainwindowsweeps.cpp
    void connectSweeps();
    // Compares these runs in the Runs tab (filtered by tag when one is given) once it lists
    // them all.
    void compareInRuns(const QStringList& runIds, const QString& tag, const QString& groupBy);
    // Selects the runs an experiment recorded once the Runs tab lists them all.
    void compareWhenListed();
    // Shows a recorded run in the training charts as they drew it live.
    void showStoredRun(const RunSeries& run);
    void resumeRun(const QString& runId);

    RunController* m_controller;
    ExperimentController* m_experiments;
    SweepController* m_sweeps;
    RunsStore* m_store;
    SetupPanel* m_setup;
    ColumnScrollArea* m_setupScroll;
    ChartsPanel* m_charts;
    HardwarePanel* m_hardware;
    PredictionsPanel* m_predictions;
    ProfilePanel* m_profile;
    LearnPanel* m_learn;
    LogPanel* m_log;
    RunsView* m_runs;
    SweepPanel* m_sweepPanel;
    RunProgress* m_progress;
    FailureBanner* m_banner;
    QSplitter* m_split;
    QTabWidget* m_tabs;
    ElidedLabel* m_blocker; // why Train is disabled, beside it in the tool bar
    QLabel* m_recording;    // "Run X waits to be recorded" while its store is locked or full
    QAction* m_train = nullptr;
    QAction* m_pause = nullptr;
    QAction* m_stop = nullptr;
    QList<QAction*> m_experimentActions; // Run > Experiments, one per preset
    QAction* m_sweepAction = nullptr;    // Run > Sweep...
    QAction* m_lessonMode = nullptr;     // View > Lesson Mode, checked while a lesson is open
    QString m_lessonFolder;              // the open lesson's folder
    QList<QAction*> m_finderActions;     // Run > Find Learning Rate, Find Batch Size
    LrFinderDialog* m_lrFinder = nullptr;
    LlmMemoryDialog* m_llmMemory = nullptr;
    BatchFinderDialog* m_batchFinder = nullptr;
    HelpWindow* m_help = nullptr;
    QString m_databasePath;
    QToolBar* m_toolBar = nullptr;
    bool m_trainWhenReady = false; // a retry waits for the set-up panel to settle
    QString m_focusAfterRun;       // the config key a failed run named
    QString m_chartRunId;          // the run in the training charts
    QString m_opening;             // a run asked to be opened, while it loads
    // An ended experiment's or sweep's runs, until the Runs tab lists them all; then they are
    // selected there, filtered by the tag and grouped by the keys given.
    QStringList m_runsToCompare;
    QString m_compareGroupBy;
    QString m_compareTag;
};

} // namespace tb::ui

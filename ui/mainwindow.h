// MainWindow: wires the panels to the run controller. Set-up on the left, charts, hardware and
// log on the right, run controls in the tool bar; the window keeps no training logic itself.
#pragma once

#include "train/runconfig.h"

#include <QMainWindow>

class QAction;
class QLabel;
class QScrollArea;
class QSplitter;
class QTabWidget;

namespace tb::ui {

class ChartsPanel;
class FailureBanner;
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

    // Starts a run with the set-up panel's config; false when it cannot (see the blocker text).
    bool train();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void connectController();
    void updateActions();
    void restoreSettings();
    void saveSettings() const;
    void retryWith(const std::vector<std::pair<std::string, std::string>>& changes);

    RunController* m_controller;
    SetupPanel* m_setup;
    QScrollArea* m_setupScroll;
    ChartsPanel* m_charts;
    HardwarePanel* m_hardware;
    LogPanel* m_log;
    RunProgress* m_progress;
    FailureBanner* m_banner;
    QSplitter* m_split;
    QTabWidget* m_tabs;
    QLabel* m_blocker;
    QAction* m_train = nullptr;
    QAction* m_pause = nullptr;
    QAction* m_stop = nullptr;
    bool m_trainWhenReady = false; // a retry waits for the set-up panel to settle
    QString m_focusAfterRun;       // the config key a failed run named
};

} // namespace tb::ui

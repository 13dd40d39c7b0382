// SweepPanel: the Sweep tab. The sweep in progress (or the last one): its trials with their
// values, state (waiting, training, completed, stopped early, failed) and metric, a progress
// bar, the counts, the best trial so far, Stop, and "Select in Runs" (the trials compared in
// the Runs tab, as they are when the sweep ends).
#pragma once

#include "experiments/sweeprunner.h"

#include <QWidget>

#include <optional>
#include <vector>

class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace tb::ui {

class SweepPanel : public QWidget {
    Q_OBJECT
public:
    explicit SweepPanel(QWidget* parent = nullptr);

    // A sweep starts: one row per trial, all waiting.
    void begin(const SweepDefinition& sweep, int parallel);
    void trialStarted(int index, const QString& runId);
    void trialFinished(const SweepTrialOutcome& outcome);
    void end(bool stopped, const QString& error);

    QTableWidget* trials() const { return m_table; }
    QString countsText() const;
    QString bestText() const;
    QPushButton* stopButton() const { return m_stop; }
    // The run ids of the trials that have one, in trial order.
    QStringList runIds() const;

signals:
    void stopRequested();
    // Select these runs in the Runs tab (filtered to the sweep's tag).
    void selectInRunsRequested(const QString& tag, const QStringList& runIds);

private:
    enum class TrialState { Waiting, Training, Completed, Halted, Failed, Stopped };
    struct Row {
        TrialState state = TrialState::Waiting;
        QString runId;
        std::optional<double> metric;
    };
    void setState(int index, TrialState state, const QString& detail = {});
    void updateSummary();

    SweepDefinition m_sweep;
    std::vector<Row> m_rows;
    bool m_running = false;
    QLabel* m_title;
    QProgressBar* m_progress;
    QLabel* m_counts;
    QLabel* m_best;
    QTableWidget* m_table;
    QPushButton* m_stop;
    QPushButton* m_select;
};

} // namespace tb::ui

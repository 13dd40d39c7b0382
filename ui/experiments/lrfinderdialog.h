// LrFinderDialog: Run > Find Learning Rate. Sweeps lr exponentially over a short run of the
// set-up (engine/experiments/lrfinder.h), draws the loss against lr as it goes, marks the
// suggested lr with how it was found, and applies it to the set-up with one click.
#pragma once

#include "core/smoothing.h"
#include "experiments/lrfinder.h"

#include <QDialog>

#include <functional>

class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace tb::ui {

class BackgroundTask;
class LrFinderChart;

class LrFinderDialog : public QDialog {
    Q_OBJECT

public:
    // `config` gives the set-up to sweep when Start is pressed; the sweep is recorded in the
    // run store at databasePath (tagged lr-find).
    LrFinderDialog(QString databasePath, std::function<RunConfig()> config,
                   QWidget* parent = nullptr);

    // False while a sweep runs or when the range fields are not valid (the summary says why).
    bool start();
    void stop();
    bool running() const;
    // Whether Start may be pressed: not while a run or an experiment trains (Stop stays).
    void setCanStart(bool can);
    const LrFinderResult& result() const { return m_result; }
    LrFinderChart* chart() const { return m_chart; }
    QPushButton* applyButton() const { return m_apply; }
    QString summary() const;
    void setSweep(double minLr, double maxLr, int steps);

signals:
    void applyRequested(double lr);
    void runningChanged(bool running);

private:
    void addStep(const StepEvent& step);
    void finish(const LrFinderResult& result, const QString& error);

    QString m_databasePath;
    std::function<RunConfig()> m_config;
    BackgroundTask* m_task;
    LrFinderResult m_result;
    DebiasedEma m_ema;
    QLineEdit* m_minLr;
    QLineEdit* m_maxLr;
    QSpinBox* m_steps;
    QPushButton* m_start;
    bool m_canStart = true;
    QPushButton* m_apply;
    QLabel* m_summary;
    LrFinderChart* m_chart;
};

} // namespace tb::ui

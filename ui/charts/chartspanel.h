// ChartsPanel: every live chart in one grid with one x-axis mode for the training charts; the
// run controller feeds it batches of events on the UI thread and calls replot() once per tick.
#pragma once

#include "charts/xaxismode.h"
#include "core/systemsample.h"
#include "events/events.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QGridLayout;

namespace tb::ui {

class ChartView;
class HardwareChart;
class LossChart;
class PrecisionChart;
class RanksChart;
class ThroughputChart;
class ValidationChart;

class ChartsPanel : public QWidget {
    Q_OBJECT

public:
    explicit ChartsPanel(QWidget* parent = nullptr);

    // Clears the training charts, measures wall time from now (the controller calls this as
    // the event arrives) and shows the precision chart only for precision=16-mixed, the ranks
    // chart only for a data-parallel run.
    void beginRun(const RunStartedEvent& run);
    // The same with the run's start time given (replays, tests, benchmarks).
    void beginRun(const RunStartedEvent& run, double startUnixTime);

    void addSteps(const std::vector<StepEvent>& steps);
    void addEpochs(const std::vector<EpochEvent>& epochs);
    // Marks the advice on the loss and throughput charts (after its step was added).
    void addAdvice(const AdviceEvent& advice);
    // Works with or without a run: the hardware chart is live all the time.
    void addSystemSamples(const std::vector<SystemSample>& samples);
    // Replots each chart that received data since the last call, at most once.
    void replot();

    XAxisMode xAxisMode() const { return m_xAxisMode; }
    void setXAxisMode(XAxisMode mode);

    int64_t stepsPerEpoch() const { return m_stepsPerEpoch; }
    LossChart* lossChart() const { return m_loss; }
    ValidationChart* validationChart() const { return m_validation; }
    ThroughputChart* throughputChart() const { return m_throughput; }
    HardwareChart* hardwareChart() const { return m_hardware; }
    PrecisionChart* precisionChart() const { return m_precision; }
    RanksChart* ranksChart() const { return m_ranks; }
    // Every chart, in the order they are laid out.
    std::vector<ChartView*> charts() const;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void relayout();

    int m_columns = 3;
    bool m_precisionShown = false;
    bool m_ranksShown = false;

    LossChart* m_loss;
    ValidationChart* m_validation;
    ThroughputChart* m_throughput;
    HardwareChart* m_hardware;
    PrecisionChart* m_precision;
    RanksChart* m_ranks;
    QComboBox* m_xAxisCombo;
    QGridLayout* m_grid;
    XAxisMode m_xAxisMode = XAxisMode::Step;
    int64_t m_stepsPerEpoch = 0;
};

} // namespace tb::ui

// PrecisionChart: the GradScaler's loss scale per logged step on a log axis, with the logging
// intervals that skipped an update marked. Only meaningful for precision=16-mixed.
#pragma once

#include "charts/chartview.h"
#include "charts/dataextent.h"
#include "charts/stepkeys.h"
#include "events/events.h"

#include <vector>

class QCPGraph;

namespace tb::ui {

class PrecisionChart : public ChartView {
    Q_OBJECT

public:
    explicit PrecisionChart(QWidget* parent = nullptr);

    void reset(double runStartUnixTime);
    void addSteps(const std::vector<StepEvent>& steps);

    QCPGraph* lossScaleGraph() const { return m_scale; }
    QCPGraph* skippedGraph() const { return m_skipped; }

protected:
    void writeCsv(QTextStream& out) const override;
    void fitToData() override;
    void xAxisModeChanged() override;

private:
    void append(std::size_t first);

    QCPGraph* m_scale;
    QCPGraph* m_skipped;
    StepKeys m_keys;
    std::vector<double> m_lossScale;
    std::vector<bool> m_wasSkipped;
    Extent m_scaleExtent;
};

} // namespace tb::ui

// PrCurveChart: a detector's precision-recall curves at IoU 0.5, one per class with its AP50 in
// the legend, and the mean over the classes in bold (Ultralytics' PR_curve.png, live): where a
// class's curve drops early, the detector finds its objects only by also finding false ones.
#pragma once

#include "charts/chartview.h"
#include "events/events.h"

#include <vector>

class QCPGraph;

namespace tb::ui {

class PrCurveChart : public ChartView {
    Q_OBJECT

public:
    explicit PrCurveChart(QWidget* parent = nullptr);

    // Shows the report's curves (a report stored before the curves were kept shows none).
    void setReport(const DetectionReport& report);
    // The classes' lines, in the report's order, then the mean's; empty before a report.
    const std::vector<QCPGraph*>& classGraphs() const { return m_classGraphs; }
    QCPGraph* meanGraph() const { return m_mean; }
    // Draws one class's line thick and the others faint (-1: all alike).
    void highlightClass(int index);

protected:
    void writeCsv(QTextStream& out) const override;
    void fitToData() override;

private:
    DetectionReport m_report;
    std::vector<QCPGraph*> m_classGraphs;
    QCPGraph* m_mean = nullptr;
};

} // namespace tb::ui

// RooflineChart: a profile on the machine's roofline, log-log: arithmetic intensity (FLOP per
// byte) against achieved GFLOP/s, the memory roof rising to the ridge point and the compute roof
// flat after it, one point per layer and pass coloured by what bounds it. Hovering a point names
// the layer.
#pragma once

#include "charts/chartview.h"
#include "events/profilereport.h"

#include <vector>

class QCPGraph;

namespace tb::ui {

class RooflineChart : public ChartView {
    Q_OBJECT

public:
    explicit RooflineChart(QWidget* parent = nullptr);

    void setReport(const ProfileReport& report);
    // The layer and pass nearest to a point of the plot within `pixels`, or -1: a row index.
    int rowAt(const QPointF& position, double pixels = 8.0) const;
    // Rows drawn as points: those with FLOPs and bytes (a log axis has no 0).
    int pointCount() const;

protected:
    void writeCsv(QTextStream& out) const override;
    void fitToData() override;

private:
    void showToolTip(QMouseEvent* event);

    ProfileReport m_report;
    QCPGraph* m_roof;
    std::vector<QCPGraph*> m_bounds; // compute, memory, overhead
};

} // namespace tb::ui

// RooflineChart: a profile on the machine's roofline, log-log: arithmetic intensity (FLOP per
// byte) against achieved GFLOP/s, the memory roof rising to the ridge point and the compute roof
// flat after it, one point per layer and pass coloured by what bounds it. Hovering a point names
// the layer. A second profile can be drawn with it (hollow points, its roofs dashed where they
// differ): the same layers before and after a change.
#pragma once

#include "charts/chartview.h"
#include "events/profilereport.h"

#include <optional>
#include <utility>
#include <vector>

class QCPGraph;

namespace tb::ui {

class RooflineChart : public ChartView {
    Q_OBJECT

public:
    explicit RooflineChart(QWidget* parent = nullptr);

    void setReport(const ProfileReport& report);
    // Another profile drawn with it, named `label` in the legend; nullopt: none.
    void setComparison(const std::optional<ProfileReport>& other, const QString& label = {});
    // The layer and pass nearest to a point of the plot within `pixels`: the profile (0: the
    // report, 1: the comparison) and the row's index, or {-1, -1}.
    std::pair<int, int> rowAt(const QPointF& position, double pixels = 8.0) const;
    // The report's rows drawn as points: those with FLOPs and bytes (a log axis has no 0).
    int pointCount() const;
    int comparisonPointCount() const;

protected:
    void writeCsv(QTextStream& out) const override;
    void fitToData() override;

private:
    void redraw();
    void showToolTip(QMouseEvent* event);

    ProfileReport m_report;
    std::optional<ProfileReport> m_other;
    QCPGraph* m_roof;
    std::vector<QCPGraph*> m_bounds; // compute, memory, overhead
    QCPGraph* m_otherPoints;
    QCPGraph* m_otherRoof;
};

} // namespace tb::ui

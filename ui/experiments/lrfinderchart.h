// LrFinderChart: the LR range test's loss against lr on a log axis: the raw loss faint, the
// smoothed loss over it, and the suggested lr as a dashed line with its value.
#pragma once

#include "charts/chartview.h"
#include "charts/dataextent.h"

#include <optional>
#include <vector>

class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;

namespace tb::ui {

class LrFinderChart : public ChartView {
    Q_OBJECT

public:
    explicit LrFinderChart(QWidget* parent = nullptr);

    void clear();
    void addPoint(double lr, double loss, double smoothed);
    // Replaces the curve by the finder's own (same points, its smoothing) and marks `suggested`.
    void setCurve(const std::vector<double>& lr, const std::vector<double>& loss,
                  const std::vector<double>& smoothed, std::optional<double> suggested);
    std::optional<double> marked() const { return m_suggested; }
    int pointCount() const { return static_cast<int>(m_lr.size()); }

protected:
    void writeCsv(QTextStream& out) const override;
    void fitToData() override;

private:
    void placeMarker();

    QCPGraph* m_raw;
    QCPGraph* m_smoothed;
    QCPItemStraightLine* m_marker;
    QCPItemText* m_markerLabel;
    std::vector<double> m_lr, m_loss, m_smoothedLoss;
    std::optional<double> m_suggested;
    Extent m_lrExtent, m_lossExtent;
};

} // namespace tb::ui

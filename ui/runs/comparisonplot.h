// ComparisonPlot: one series of many runs (or groups of runs) overlaid. Each line keeps every
// point; drawing merges the points that fall in one pixel column into their min and max
// (QCustomPlot's adaptive sampling), so spikes stay visible and zooming in shows the real
// points. A line is drawn smoothed over its raw points (faint), a group with its band; its best
// and last points are marked; a click on its legend entry hides or shows it; hovering shows
// run, x and y of the nearest point.
#pragma once

#include "charts/chartview.h"
#include "store/runseries.h"

#include <QColor>
#include <QString>

#include <vector>

class QCPAbstractLegendItem;
class QCPGraph;

namespace tb::ui {

struct ComparisonLine {
    QString id;    // run id, or group label
    QString label; // legend text
    QColor color;
    SeriesPoints points; // the raw (or group mean) values
    // A group's band (min-max or mean +- std), empty for a single run.
    std::vector<double> bandLow, bandHigh;
};

class ComparisonPlot : public ChartView {
    Q_OBJECT
public:
    explicit ComparisonPlot(QWidget* parent = nullptr);

    // What is plotted: the lines, the series (for labels and "best"), the x axis, the smoothing
    // weight (0: raw only) and a log y axis.
    void setLines(std::vector<ComparisonLine> lines, const SeriesInfo& series, SeriesX x,
                  double smoothing, bool logY);
    const std::vector<ComparisonLine>& lines() const { return m_lines; }

    void setLineVisible(const QString& id, bool visible);
    bool isLineVisible(const QString& id) const;
    // The text hovering at plot position (pixels) shows; empty when no point is near.
    QString hoverText(const QPointF& pixel) const;
    // For tests: the graph drawn for a line (its smoothed or only curve) and its point count.
    QCPGraph* mainGraph(const QString& id) const;

protected:
    void writeCsv(QTextStream& out) const override;
    void fitToData() override;

private:
    struct Drawn {
        QCPGraph* raw = nullptr;     // faint, when smoothed
        QCPGraph* main = nullptr;    // smoothed, or the raw line
        QCPGraph* bandLow = nullptr; // group band: low edge, filled up to bandHigh
        QCPGraph* bandHigh = nullptr;
        QCPGraph* markers = nullptr; // best and last
        bool visible = true;
    };
    void rebuild();
    void toggleFromLegend(QCPAbstractLegendItem* item);

    std::vector<ComparisonLine> m_lines;
    std::vector<Drawn> m_drawn;
    SeriesInfo m_series;
    SeriesX m_x = SeriesX::Step;
    double m_smoothing = 0.0;
    bool m_logY = false;
    QStringList m_hidden; // ids hidden from the legend, kept across rebuilds
};

// The i-th colour a compared run gets: 20 distinguishable hues (the charts' eight, then
// darker and lighter variants).
QColor comparisonColor(int i);

} // namespace tb::ui

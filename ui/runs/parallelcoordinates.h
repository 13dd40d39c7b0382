// ParallelCoordinates: runs as lines across one vertical axis per config key that differs
// between them, the chosen metric last, each line coloured by that metric (the colour bar says
// how). Dragging along an axis brushes a range there; the runs inside every brush are
// brushedRunIds(), announced by brushed() (the Runs tab selects them). Clicking an axis without
// dragging clears its brush. Drawn with QPainter: 500 runs redraw in a few milliseconds.
#pragma once

#include "runs/parallelaxes.h"
#include "runs/runvalues.h"

#include <QWidget>

#include <map>
#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QPushButton;

namespace tb {
struct RunRecord;
}

namespace tb::ui {

class ParallelCoordinatesCanvas;

class ParallelCoordinates : public QWidget {
    Q_OBJECT
public:
    explicit ParallelCoordinates(QWidget* parent = nullptr);

    // The runs to draw (those the Runs table shows), and those selected there (drawn wider).
    void setRuns(const std::vector<RunRecord>& runs);
    void setSelectedRunIds(const QStringList& ids);
    void setMetric(const QString& metric);
    QString metric() const;

    // The axes, left to right: the differing config keys, then the metric.
    const std::vector<ParallelAxis>& axes() const { return m_axes; }
    // A brush on the key's axis from one fraction of its height to another (0: bottom);
    // replaces the one there. Emits brushed().
    void setBrush(const QString& key, double from, double to);
    void clearBrushes();
    // The runs inside every brush (all runs when there is none), in the order given.
    QStringList brushedRunIds() const;
    // For tests: the run's place on an axis, if it has a value there.
    std::optional<double> fractionOf(const QString& runId, const QString& key) const;
    QWidget* canvas() const;

signals:
    void brushed(const QStringList& runIds);

private:
    friend class ParallelCoordinatesCanvas;
    struct Line {
        QString runId;
        std::vector<std::optional<double>> at; // per axis
        std::optional<double> metric;          // the metric axis's fraction, for the colour
    };
    void rebuild();
    bool inBrushes(const Line& line) const;

    std::vector<RunRecord> m_runs;
    std::vector<RunValues> m_values;
    std::vector<ParallelAxis> m_axes;
    std::vector<Line> m_lines;
    std::map<QString, std::pair<double, double>> m_brushes; // key -> fractions, low first
    QStringList m_selected;
    QComboBox* m_metric;
    QPushButton* m_clear;
    QLabel* m_status;
    ParallelCoordinatesCanvas* m_canvas;
};

} // namespace tb::ui

// ComparisonView: the runs chosen in the Runs view side by side. One series of all of them
// overlaid (any recorded series, any x axis, smoothed or raw, log y, grouped by config keys with
// a min-max or +-1 std band), a summary table with the time and samples each took to reach a
// target accuracy, the config keys that differ, a parameters plot (one point per run), parallel
// coordinates over the runs the table shows (brushing selects runs there) and parameter
// importance over those compared.
#pragma once

#include "store/runseries.h"

#include <QColor>
#include <QWidget>

#include <functional>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSlider;
class QTableWidget;
class QTabWidget;

namespace tb::ui {

class Comparison;
class ComparisonPlot;
class ImportanceView;
class ParallelCoordinates;
class ParametersPlot;

class ComparisonView : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonView(Comparison& comparison, QWidget* parent = nullptr);

    // The series, x axis and drawing options (the controls follow).
    void setSeries(const QString& name);
    QString series() const;
    void setXAxis(SeriesX x);
    void setSmoothing(double weight);
    void setLogY(bool on);
    // Comma-separated config keys ("lr,seed"); empty: one line per run.
    void setGroupBy(const QString& keys);
    void setBandIsStd(bool std);
    // Accuracy in percent that the summary's "to target" columns measure against.
    void setTargetAccuracy(double percent);

    ComparisonPlot* plot() const { return m_plot; }
    ParametersPlot* parameters() const { return m_parameters; }
    ParallelCoordinates* parallelCoordinates() const { return m_parallel; }
    ImportanceView* importance() const { return m_importance; }
    // The runs the Runs table shows (its filter applied): the parallel coordinates draw them.
    void setShownRuns(const std::vector<RunRecord>& runs);
    QTableWidget* summary() const { return m_summary; }
    QTableWidget* configDiff() const { return m_diff; }
    QTabWidget* tabs() const { return m_tabs; }
    // False between a change of the comparison and the rebuild it schedules.
    bool upToDate() const { return !m_rebuildPending; }
    // The colour a run is drawn in (stored with it; chosen the first time it is drawn).
    QColor colorOf(const QString& runId) const;

signals:
    // A run got its colour: the window stores it with the run.
    void colorAssigned(const QString& runId, const QString& color);
    // Ranges brushed on the parallel coordinates: the runs inside them, to select.
    void runsBrushed(const QStringList& runIds);

private:
    void rebuild();
    void rebuildSeriesChoices();
    void rebuildPlot();
    void rebuildSummary();
    void rebuildConfigDiff();

    Comparison& m_comparison;
    QComboBox* m_series;
    QComboBox* m_x;
    QSlider* m_smoothing;
    QCheckBox* m_logY;
    QLineEdit* m_groupBy;
    QComboBox* m_band;
    QLineEdit* m_target;
    QLabel* m_status;
    QTabWidget* m_tabs;
    ComparisonPlot* m_plot;
    QTableWidget* m_summary;
    QTableWidget* m_diff;
    ParametersPlot* m_parameters;
    ParallelCoordinates* m_parallel;
    ImportanceView* m_importance;
    std::size_t m_shownRuns = 0;
    mutable std::map<QString, QColor> m_assigned; // colours chosen here, until stored
    QString m_wantedSeries; // the series last chosen, kept while runs lacking it are shown
    bool m_rebuildPending = false;
};

} // namespace tb::ui

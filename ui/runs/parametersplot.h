// ParametersPlot: one point per run, a config key or a summary value against another (batch_size
// against best validation accuracy, num_workers against samples/s), as W&B's parameter plots
// show them. Keys whose values are not all numbers are placed as categories.
#pragma once

#include "charts/chartview.h"
#include "store/runrecord.h"

#include <QColor>

#include <map>
#include <vector>

class QComboBox;
class QCPGraph;

namespace tb::ui {

class ParametersPlot : public ChartView {
    Q_OBJECT
public:
    explicit ParametersPlot(QWidget* parent = nullptr);

    // The runs to place, each with its colour. Keeps the chosen keys when they still exist.
    void setRuns(const std::vector<RunRecord>& runs, const std::vector<QColor>& colors);
    void setKeys(const QString& x, const QString& y);
    QString xKey() const;
    QString yKey() const;
    // Every key a run can be placed by: summary values first, then config keys that differ.
    QStringList keys() const;
    // For tests: the plotted (x, y) of a run, when it has both values.
    std::optional<QPointF> pointOf(const QString& runId) const;

protected:
    void writeCsv(QTextStream& out) const override;
    void fitToData() override;

private:
    void redraw();
    // Each run's value of key, as text ("" when it has none).
    std::vector<QString> valuesOf(const QString& key) const;

    std::vector<RunRecord> m_runs;
    std::vector<QColor> m_colors;
    QString m_defaultX; // the x key last chosen by default, not by the user
    std::vector<std::map<QString, QString>> m_values; // per run: key -> value
    QComboBox* m_xKey;
    QComboBox* m_yKey;
    std::vector<std::optional<QPointF>> m_points;
    std::vector<QCPGraph*> m_graphs;
};

} // namespace tb::ui

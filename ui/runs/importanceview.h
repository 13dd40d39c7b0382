// ImportanceView: which config keys mattered to a metric across the runs compared: each key's
// share of the random forest's permutation importance (as a bar), its correlation with the
// metric, the number of runs it rests on and how much of the metric the forest explains; "not
// enough runs" below the minimum (experiments/parameterimportance.h computes it).
#pragma once

#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QTableWidget;

namespace tb {
struct RunRecord;
}

namespace tb::ui {

class ImportanceView : public QWidget {
    Q_OBJECT
public:
    explicit ImportanceView(QWidget* parent = nullptr);

    void setRuns(const std::vector<RunRecord>& runs);
    void setMetric(const QString& metric);
    QTableWidget* table() const { return m_table; }
    QString summary() const;

private:
    void recompute();

    std::vector<RunRecord> m_runs;
    QComboBox* m_metric;
    QLabel* m_summary;
    QTableWidget* m_table;
};

} // namespace tb::ui

// SweepDialog (Run > Sweep...): a sweep of the set-up column's config. Rows of keys, each with
// its values (a list, or a linear or log range), the method (grid, random with a count and a
// seed, or successive halving with its budget), the metric and its goal, how many trials train
// at once. The same checks as a sweep file (experiments/sweepdefinition.h) run as it is edited:
// the trial count, or the problem naming the key, shows under the form and Start waits for a
// valid sweep. "Save As..." writes the sweep file `trainbench-cli sweep` takes.
#pragma once

#include "experiments/sweepdefinition.h"
#include "train/runconfig.h"

#include <QDialog>

#include <optional>

class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace tb::ui {

class SweepDialog : public QDialog {
    Q_OBJECT
public:
    enum class Scale { List, Linear, Log };

    SweepDialog(const RunConfig& base, QWidget* parent = nullptr);

    // A row: the key, its values ("0.01, 0.1"; a range: "min, max"), the scale and, for a range
    // in a grid, its number of points.
    void addParameter(const QString& key, const QString& values, Scale scale = Scale::List,
                      int steps = 3);
    void removeParameter(int row);
    int parameterCount() const;
    void setName(const QString& name);
    void setMethod(SweepMethod method);
    void setCount(int count);
    void setSeed(int seed);
    void setBudget(bool epochs, int min, int max, int reduction);
    void setMetric(const QString& metric);
    void setParallel(int parallel);

    // The sweep file the form describes, and the sweep when it is valid (else problem()).
    nlohmann::json json() const;
    std::optional<SweepDefinition> definition() const;
    QString problem() const;
    int parallel() const;
    QPushButton* startButton() const { return m_start; }
    QLabel* preview() const { return m_preview; }

private:
    void addRow();
    void updatePreview();
    void updateMethodFields();
    void saveAs();

    RunConfig m_base;
    QLineEdit* m_name;
    QTableWidget* m_parameters;
    QPushButton* m_add;
    QPushButton* m_remove;
    QComboBox* m_method;
    QSpinBox* m_count;
    QSpinBox* m_seed;
    QGroupBox* m_budget;
    QComboBox* m_unit;
    QSpinBox* m_min;
    QSpinBox* m_max;
    QSpinBox* m_reduction;
    QComboBox* m_metric;
    QComboBox* m_goal;
    QSpinBox* m_parallel;
    QLabel* m_preview;
    QPushButton* m_start;
    QPushButton* m_save;
};

} // namespace tb::ui

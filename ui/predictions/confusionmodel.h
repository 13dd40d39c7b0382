// ConfusionModel: a validation report's confusion matrix as a table (rows: true class, columns:
// predicted class, then recall), each cell shaded by its share of the row, so the diagonal
// reads as what the model gets right and a dark cell off it as a pair of classes it mixes up.
// A detector's matrix has the background as its last class: its row counts false positives,
// its column missed objects, and the row's "recall" means nothing.
#pragma once

#include "events/events.h"

#include <QAbstractTableModel>

class QTableView;
class QWidget;

namespace tb::ui {

class ConfusionModel;

// A table view of `model` as the Predictions tab shows every confusion matrix: counts sharing
// the width and height, the recall column as wide as its text, nothing selectable or editable.
QTableView* makeConfusionView(ConfusionModel* model, const QString& objectName,
                              const QString& accessibleName, QWidget* parent);

class ConfusionModel : public QAbstractTableModel {
    Q_OBJECT

public:
    explicit ConfusionModel(QObject* parent = nullptr);

    void setReport(const ValidationReport& report);
    // A detector's matrix (DetectionReport::confusion), the background last.
    void setDetectionReport(const DetectionReport& report);
    bool hasBackground() const { return m_background; }
    const ValidationReport& report() const { return m_report; }

    // The recall column follows the classes.
    int recallColumn() const { return m_report.classes; }
    // The report's name of class c, or "class c" where it has none.
    QString className(int c) const;
    // Correct predictions of the class over its samples; NaN for a class with none.
    double recall(int label) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    int64_t rowTotal(int label) const;

    bool isBackground(int c) const { return m_background && c == m_report.classes - 1; }

    ValidationReport m_report;
    bool m_background = false;
};

} // namespace tb::ui

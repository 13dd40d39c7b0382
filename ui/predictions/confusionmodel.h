// ConfusionModel: a validation report's confusion matrix as a table (rows: true class, columns:
// predicted class, then recall), each cell shaded by its share of the row, so the diagonal
// reads as what the model gets right and a dark cell off it as a pair of classes it mixes up.
#pragma once

#include "events/events.h"

#include <QAbstractTableModel>

namespace tb::ui {

class ConfusionModel : public QAbstractTableModel {
    Q_OBJECT

public:
    explicit ConfusionModel(QObject* parent = nullptr);

    void setReport(const ValidationReport& report);
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

    ValidationReport m_report;
};

} // namespace tb::ui

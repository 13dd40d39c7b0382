// RunsTableModel: every run of the store as a row (name, status, model, dataset, device,
// precision, effective batch, best validation accuracy and its epoch, final loss, samples/s,
// peak memory, duration, start, tags, notes). setRuns() merges a fresh listing into the rows it
// has (changed rows updated, new ones inserted, deleted ones removed), so a view keeps its
// selection and scroll while another process trains.
#pragma once

#include "store/runrecord.h"

#include <QAbstractTableModel>

#include <vector>

namespace tb::ui {

class RunsTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Name,
        Status,
        Model,
        Dataset,
        Device,
        Ranks,
        Precision,
        EffectiveBatch,
        BestValAcc,
        FinalTrainLoss,
        SamplesPerSec,
        PeakMemory,
        Duration,
        Started,
        Tags,
        Notes,
        ColumnCount
    };
    // Qt::UserRole: the value to sort by (numbers as numbers, a missing one below all others).
    static constexpr int SortRole = Qt::UserRole;
    static constexpr int RunIdRole = Qt::UserRole + 1;
    static constexpr int StatusRole = Qt::UserRole + 2; // toString(RunStatus)
    // Every piece of text a free-text filter matches (name, id, model, dataset, tags, notes).
    static constexpr int SearchTextRole = Qt::UserRole + 3;

    explicit RunsTableModel(QObject* parent = nullptr);

    // Merges `runs` (a full listing) into the model by run id.
    void setRuns(std::vector<RunRecord> runs);
    const RunRecord* run(const QString& id) const;
    const RunRecord& runAt(int row) const { return m_runs[static_cast<std::size_t>(row)]; }
    int rowOf(const QString& id) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<RunRecord> m_runs;
};

} // namespace tb::ui

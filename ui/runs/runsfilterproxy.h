// RunsFilterProxy: the runs table sorted by any column (by value, not by text) and filtered by
// free text (name, id, model, dataset, tags, notes; every word must match) and by status, tag,
// model and dataset. (Qt's customsortfiltermodel example.)
#pragma once

#include <QSortFilterProxyModel>

namespace tb::ui {

class RunsFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit RunsFilterProxy(QObject* parent = nullptr);

    // Empty strings match everything.
    void setText(const QString& text);
    void setStatus(const QString& status);
    void setTag(const QString& tag);
    void setModel(const QString& model);
    void setDataset(const QString& dataset);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    void changed();

    QStringList m_words;
    QString m_status, m_tag, m_model, m_dataset;
};

} // namespace tb::ui

// RunsFilterProxy: filters read the model's roles; sorting compares SortRole values.
#include "runs/runsfilterproxy.h"

#include "runs/runstablemodel.h"

namespace tb::ui {

RunsFilterProxy::RunsFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(RunsTableModel::SortRole);
    setDynamicSortFilter(true);
}

void RunsFilterProxy::setText(const QString& text) {
    m_words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    changed();
}

void RunsFilterProxy::setStatus(const QString& status) {
    m_status = status;
    changed();
}

void RunsFilterProxy::setTag(const QString& tag) {
    m_tag = tag;
    changed();
}

void RunsFilterProxy::setModel(const QString& model) {
    m_model = model;
    changed();
}

void RunsFilterProxy::setDataset(const QString& dataset) {
    m_dataset = dataset;
    changed();
}

void RunsFilterProxy::changed() {
    invalidateFilter();
}

bool RunsFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& parent) const {
    const QAbstractItemModel* m = sourceModel();
    const auto value = [&](int column, int role) {
        return m->data(m->index(sourceRow, column, parent), role).toString();
    };
    if (!m_status.isEmpty() && value(0, RunsTableModel::StatusRole) != m_status)
        return false;
    if (!m_model.isEmpty() && value(RunsTableModel::Model, Qt::DisplayRole) != m_model)
        return false;
    if (!m_dataset.isEmpty() && value(RunsTableModel::Dataset, Qt::DisplayRole) != m_dataset)
        return false;
    if (!m_tag.isEmpty() &&
        !value(RunsTableModel::Tags, Qt::DisplayRole).split(QStringLiteral(", ")).contains(m_tag))
        return false;
    const QString haystack = value(0, RunsTableModel::SearchTextRole);
    for (const QString& word : m_words)
        if (!haystack.contains(word, Qt::CaseInsensitive))
            return false;
    return true;
}

bool RunsFilterProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    const QVariant a = left.data(RunsTableModel::SortRole),
                   b = right.data(RunsTableModel::SortRole);
    if (a.typeId() == QMetaType::QString || b.typeId() == QMetaType::QString)
        return QString::localeAwareCompare(a.toString(), b.toString()) < 0;
    return a.toDouble() < b.toDouble();
}

} // namespace tb::ui

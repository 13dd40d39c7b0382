// Comparison: a map of loaded runs by id beside the chosen order.
#include "runs/comparison.h"

namespace tb::ui {

Comparison::Comparison(QObject* parent) : QObject(parent) {}

QStringList Comparison::setRuns(const QStringList& ids) {
    m_ids = ids;
    for (auto it = m_series.begin(); it != m_series.end();)
        it = ids.contains(it->first) ? std::next(it) : m_series.erase(it);
    QStringList missing;
    for (const QString& id : ids)
        if (!m_series.count(id))
            missing << id;
    emit changed();
    return missing;
}

bool Comparison::complete() const {
    for (const QString& id : m_ids)
        if (!m_series.count(id))
            return false;
    return true;
}

void Comparison::addLoaded(const QString& id, std::shared_ptr<RunSeries> series) {
    if (!m_ids.contains(id) || !series)
        return; // unchosen while it loaded
    m_series[id] = std::move(series);
    emit changed();
}

void Comparison::appendRows(const QString& id, const RunTailUpdate& update) {
    const auto it = m_series.find(id);
    if (it == m_series.end())
        return;
    it->second->append(update);
    emit changed();
}

void Comparison::removeRun(const QString& id) {
    m_ids.removeAll(id);
    m_series.erase(id);
    emit changed();
}

const RunSeries* Comparison::series(const QString& id) const {
    const auto it = m_series.find(id);
    return it == m_series.end() ? nullptr : it->second.get();
}

std::vector<const RunSeries*> Comparison::loaded() const {
    std::vector<const RunSeries*> out;
    for (const QString& id : m_ids)
        if (const RunSeries* s = series(id))
            out.push_back(s);
    return out;
}

} // namespace tb::ui

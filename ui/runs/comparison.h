// Comparison: the runs chosen for comparing and what has been read of each, by run id (named
// series in one map, as PlotJuggler's PlotDataMapRef), kept in the order chosen. A run being
// written grows as its rows arrive; views redraw on changed().
#pragma once

#include "store/runseries.h"

#include <QObject>
#include <QStringList>

#include <map>
#include <memory>

namespace tb::ui {

class Comparison : public QObject {
    Q_OBJECT
public:
    explicit Comparison(QObject* parent = nullptr);

    // The runs to compare, in order; runs no longer chosen are forgotten. Returns the ids not
    // loaded yet, for the caller to request.
    QStringList setRuns(const QStringList& ids);
    const QStringList& runIds() const { return m_ids; }
    // Every chosen run has been loaded.
    bool complete() const;

    // Keeps the loaded run (shared, not copied: a long run is large).
    void addLoaded(const QString& id, std::shared_ptr<RunSeries> series);
    void appendRows(const QString& id, const RunTailUpdate& update);
    // A run deleted meanwhile: dropped from the comparison.
    void removeRun(const QString& id);

    const RunSeries* series(const QString& id) const;
    // The loaded runs in the chosen order.
    std::vector<const RunSeries*> loaded() const;

signals:
    void changed();

private:
    QStringList m_ids;
    std::map<QString, std::shared_ptr<RunSeries>> m_series;
};

} // namespace tb::ui

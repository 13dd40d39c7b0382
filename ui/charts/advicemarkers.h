// AdviceMarkers: a dashed vertical line with the rule's name at the step where the advisor
// spoke, on one axis rect of a step-keyed chart; clicking it opens the rule's concept card.
#pragma once

#include "charts/stepkeys.h"
#include "charts/xaxismode.h"
#include "events/events.h"

#include <QObject>
#include <QString>

#include <vector>

class QCPAxisRect;
class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;

namespace tb::ui {

class AdviceMarkers : public QObject {
    Q_OBJECT

public:
    AdviceMarkers(QCustomPlot* plot, QCPAxisRect* rect);

    // Marks `advice` at its step, keyed as `keys` has that step in `mode`.
    void add(const AdviceEvent& advice, const StepKeys& keys, XAxisMode mode);
    // Moves every marker to the keys of another x-axis mode.
    void rekey(const StepKeys& keys, XAxisMode mode);
    void clear();

    int count() const { return static_cast<int>(m_markers.size()); }
    // The rule of each marker and its x position, in the order they were added (for tests).
    QString rule(int i) const { return m_markers[static_cast<std::size_t>(i)].rule; }
    double x(int i) const;

private:
    struct Marker {
        int64_t step = 0;
        QString rule;
        QCPItemStraightLine* line = nullptr;
        QCPItemText* label = nullptr;
    };
    void place(Marker& marker, const StepKeys& keys, XAxisMode mode);

    QCustomPlot* m_plot;
    QCPAxisRect* m_rect;
    std::vector<Marker> m_markers;
};

} // namespace tb::ui

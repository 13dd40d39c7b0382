// Tab stops in reading order: rows from the widgets' window geometry, sorted by insertion (the
// "same row" relation is not transitive, which std::sort would not tolerate).
#include "keyboard/tabstops.h"

#include <QRect>
#include <QWidget>

namespace tb::ui {

namespace {

QRect windowRect(const QWidget* w) {
    return QRect(w->mapTo(w->window(), QPoint(0, 0)), w->size());
}

// a reads before b: a's row is above b's, or they share a row and a is further left.
bool readsBefore(const QRect& a, const QRect& b) {
    const bool sameRow = a.top() <= b.bottom() && b.top() <= a.bottom();
    if (!sameRow)
        return a.top() < b.top();
    return a.left() < b.left();
}

} // namespace

bool isTabStop(const QWidget* w) {
    return w && (w->focusPolicy() & Qt::TabFocus) == Qt::TabFocus && !w->focusProxy() &&
           w->isVisible() && w->isEnabled();
}

QList<QWidget*> tabStopsIn(QWidget* region) {
    QList<QWidget*> candidates;
    if (!region || !region->isVisible())
        return candidates;
    if (isTabStop(region))
        candidates << region;
    for (QWidget* w : region->findChildren<QWidget*>())
        if (!w->isWindow() && isTabStop(w))
            candidates << w;
    QList<QWidget*> stops;
    QList<QRect> rects;
    for (QWidget* w : candidates) {
        const QRect r = windowRect(w);
        qsizetype at = stops.size();
        while (at > 0 && readsBefore(r, rects[at - 1]))
            --at;
        stops.insert(at, w);
        rects.insert(at, r);
    }
    return stops;
}

QWidget* nextTabStop(const QList<QWidget*>& stops, const QWidget* current, bool forward) {
    if (stops.isEmpty())
        return nullptr;
    const qsizetype at = stops.indexOf(const_cast<QWidget*>(current));
    if (at < 0)
        return forward ? stops.first() : stops.last();
    const qsizetype n = stops.size();
    return stops[(at + (forward ? 1 : n - 1)) % n];
}

} // namespace tb::ui

// Where Tab goes. The window walks its regions in the order it reads (set-up column, tool bar,
// banner, tab bar, the current tab, the log); inside a region, its stops in reading order.
#pragma once

#include <QList>

class QWidget;

namespace tb::ui {

// Whether Tab may stop at `w`, by the rule of Qt's own focus chain: it takes tab focus, is
// visible and enabled, and does not hand its focus to a proxy (the proxy is the stop).
bool isTabStop(const QWidget* w);

// The stops in `region` (itself included), top row first, left to right within a row; two
// widgets are in one row when their vertical extents overlap.
QList<QWidget*> tabStopsIn(QWidget* region);

// The stop after (or before) `current` in `stops`, cycling; the first (or last) stop when
// `current` is none of them. Null when there are no stops.
QWidget* nextTabStop(const QList<QWidget*>& stops, const QWidget* current, bool forward);

} // namespace tb::ui

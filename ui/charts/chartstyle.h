// Series colours and pens shared by the charts: mid-tone colours that read on a light and on a
// dark background alike (the axes, text and grid follow the widget palette instead).
#pragma once

#include <QColor>
#include <QPen>

namespace tb::ui {

// The i-th series colour (cycles after eight).
QColor seriesColor(int i);
// A pen for a data line, cosmetic so export scaling keeps it thin. Dense series keep the
// default 1 px: wider anti-aliased pens leave Qt's fast line path (7x slower per replot).
QPen seriesPen(const QColor& color, double width = 1.0);
// a*(1-t) + b*t per channel: grid lines between the text and the background colour.
QColor mixColors(const QColor& a, const QColor& b, double t);

} // namespace tb::ui

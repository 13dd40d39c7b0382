// Series colours: Tableau-like hues at mid lightness, checked on white and on #2b2b2b.
#include "charts/chartstyle.h"

#include <array>

namespace tb::ui {

QColor seriesColor(int i) {
    static const std::array<QColor, 8> kColors = {
        QColor(0x3a, 0x8d, 0xde), // blue
        QColor(0xf0, 0x8a, 0x24), // orange
        QColor(0x3b, 0xaa, 0x5c), // green
        QColor(0xe0, 0x47, 0x4c), // red
        QColor(0x9b, 0x6b, 0xd6), // purple
        QColor(0x1f, 0xa6, 0xa6), // teal
        QColor(0xc9, 0xa2, 0x27), // ochre
        QColor(0xe4, 0x6f, 0xb0), // pink
    };
    return kColors[static_cast<std::size_t>(i) % kColors.size()];
}

QPen seriesPen(const QColor& color, double width) {
    QPen pen(color, width);
    pen.setCosmetic(true);
    return pen;
}

QColor mixColors(const QColor& a, const QColor& b, double t) {
    return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - t) + b.redF() * t),
                            static_cast<float>(a.greenF() * (1 - t) + b.greenF() * t),
                            static_cast<float>(a.blueF() * (1 - t) + b.blueF() * t));
}

} // namespace tb::ui

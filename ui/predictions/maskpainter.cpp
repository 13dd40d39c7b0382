// Mask painting: the engine's overlay (dataset-info's grid draws the same), then a Qt scale.
#include "predictions/maskpainter.h"

#include "data/segmentationinfo.h"
#include "predictions/boxpainter.h"

#include <QColor>

namespace tb::ui {

QImage paintMask(const RgbImage& image, const ClassMask* mask, float opacity, int side) {
    RgbImage drawn = image;
    if (mask && mask->width == image.width && mask->height == image.height)
        overlayMask(drawn, *mask, opacity);
    const QImage out = toQImage(drawn);
    // Small images grow by whole pixels (every class boundary stays where it is); large ones
    // shrink smoothly.
    const bool growing = out.width() < side && out.height() < side;
    return out.scaled(side, side, Qt::KeepAspectRatio,
                      growing ? Qt::FastTransformation : Qt::SmoothTransformation);
}

QString maskLegend(const std::vector<std::string>& classNames) {
    QString legend;
    const auto& palette = vocPalette();
    for (std::size_t c = 1; c < classNames.size(); ++c) {
        const auto& rgb = palette[c];
        legend += QStringLiteral("<span style=\"color:%1\">&#9632;</span>&nbsp;%2 &nbsp; ")
                      .arg(QColor(rgb[0], rgb[1], rgb[2]).name(),
                           QString::fromStdString(classNames[c]).toHtmlEscaped());
    }
    return legend;
}

} // namespace tb::ui

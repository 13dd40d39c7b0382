// paintBoxes(): drawn after scaling, so that a 2 px line and 9 px text are 2 px and 9 px on
// screen whatever the image's own size.
#include "predictions/boxpainter.h"

#include "charts/chartstyle.h"

#include <QFont>
#include <QFontMetrics>
#include <QPainter>

#include <algorithm>

namespace tb::ui {

namespace {

// A label on a filled tab above the box's top-left corner (inside it at the image's top edge).
void drawLabel(QPainter& painter, const QRectF& box, const QString& text, const QColor& color) {
    const QFontMetrics metrics(painter.font());
    const QRectF tab(0, 0, metrics.horizontalAdvance(text) + 4, metrics.height());
    QPointF at = box.topLeft() - QPointF(0, tab.height());
    if (at.y() < 0)
        at.setY(box.top());
    at.setX(std::min(at.x(), painter.device()->width() - tab.width()));
    painter.fillRect(tab.translated(at), color);
    painter.setPen(color.lightness() > 150 ? Qt::black : Qt::white);
    painter.drawText(tab.translated(at), Qt::AlignCenter, text);
}

QString nameOf(const std::vector<std::string>& names, int c) {
    return c >= 0 && c < static_cast<int>(names.size())
               ? QString::fromStdString(names[static_cast<std::size_t>(c)])
               : QString::number(c);
}

} // namespace

QColor boxColor(int classIndex) {
    return seriesColor(classIndex);
}

QImage toQImage(const RgbImage& image) {
    if (image.width <= 0 || image.height <= 0)
        return {};
    return QImage(image.pixels.data(), image.width, image.height, image.width * 3,
                  QImage::Format_RGB888)
        .copy(); // owns its pixels
}

RgbImage fromQImage(const QImage& image) {
    const QImage rgb = image.convertToFormat(QImage::Format_RGB888);
    RgbImage out;
    out.width = rgb.width();
    out.height = rgb.height();
    out.pixels.resize(static_cast<std::size_t>(out.width) * static_cast<std::size_t>(out.height) *
                      3);
    for (int y = 0; y < rgb.height(); ++y)
        std::copy_n(rgb.constScanLine(y), out.width * 3,
                    out.pixels.begin() + static_cast<std::ptrdiff_t>(y) * out.width * 3);
    return out;
}

namespace {

// The image scaled for the view, a painter on it, and the scale from the image's pixels.
struct Canvas {
    QImage image;
    double sx = 1, sy = 1;
    QRectF map(float x1, float y1, float x2, float y2) const {
        return {x1 * sx, y1 * sy, (x2 - x1) * sx, (y2 - y1) * sy};
    }
};

Canvas scaledCanvas(const RgbImage& image, int side) {
    Canvas c;
    c.image = toQImage(image);
    if (c.image.isNull())
        return c;
    c.image = c.image.scaled(side, side, Qt::KeepAspectRatio, Qt::SmoothTransformation)
                  .convertToFormat(QImage::Format_RGB32);
    c.sx = double(c.image.width()) / image.width;
    c.sy = double(c.image.height()) / image.height;
    return c;
}

void preparePainter(QPainter& painter, int side) {
    painter.setRenderHint(QPainter::Antialiasing);
    QFont font = painter.font();
    font.setPixelSize(std::clamp(side / 24, 8, 12));
    painter.setFont(font);
}

} // namespace

QImage paintDetections(const RgbImage& image, const std::vector<LabeledBox>& truth,
                       const std::vector<DetectedBox>& detections,
                       const std::vector<std::string>& classNames, float minConfidence, int side) {
    Canvas canvas = scaledCanvas(image, side);
    if (canvas.image.isNull())
        return {};
    QPainter painter(&canvas.image);
    preparePainter(painter, side);
    for (const LabeledBox& b : truth) {
        const QRectF r = canvas.map(b.x1, b.y1, b.x2, b.y2);
        // Dashed white over black: visible on any image, and never a class colour.
        painter.setPen(QPen(Qt::black, 2.0));
        painter.drawRect(r);
        painter.setPen(QPen(Qt::white, 2.0, b.crowd ? Qt::DotLine : Qt::DashLine));
        painter.drawRect(r);
    }
    // The weakest first, so that the confident boxes and their labels are on top.
    for (auto d = detections.rbegin(); d != detections.rend(); ++d) {
        if (d->confidence < minConfidence)
            continue;
        const QColor color = boxColor(d->classIndex);
        const QRectF r = canvas.map(d->x1, d->y1, d->x2, d->y2);
        painter.setPen(QPen(color, 2.0));
        painter.drawRect(r);
        drawLabel(painter, r,
                  QStringLiteral("%1 %2")
                      .arg(nameOf(classNames, d->classIndex))
                      .arg(d->confidence, 0, 'f', 2),
                  color);
    }
    painter.end();
    return canvas.image;
}

QImage paintLabels(const RgbImage& image, const std::vector<LabeledBox>& boxes,
                   const std::vector<std::string>& classNames, int side) {
    Canvas canvas = scaledCanvas(image, side);
    if (canvas.image.isNull())
        return {};
    QPainter painter(&canvas.image);
    preparePainter(painter, side);
    for (const LabeledBox& b : boxes) {
        const QColor color = boxColor(b.category);
        const QRectF r = canvas.map(b.x1, b.y1, b.x2, b.y2);
        painter.setPen(QPen(color, 1.5, b.crowd ? Qt::DotLine : Qt::SolidLine));
        painter.drawRect(r);
        drawLabel(painter, r, nameOf(classNames, b.category), color);
    }
    painter.end();
    return canvas.image;
}

} // namespace tb::ui

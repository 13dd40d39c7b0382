// DrawingCanvas: a round pen a tenth of the canvas wide, about two input pixels at 28x28, so a
// drawn stroke is as thick as the dataset's.
#include "predictions/drawingcanvas.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace tb::ui {

namespace {
constexpr double kPenWidth = DrawingCanvas::kResolution / 12.0;
}

DrawingCanvas::DrawingCanvas(QWidget* parent)
    : QWidget(parent), m_image(kResolution, kResolution, QImage::Format_RGB32) {
    setObjectName(QStringLiteral("drawing-canvas"));
    setAccessibleName(tr("Drawing canvas"));
    setMinimumSize(140, 140);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    setCursor(Qt::CrossCursor);
    setToolTip(tr("Draw with the mouse; the model's answer follows each stroke"));
    m_image.fill(Qt::black);
}

void DrawingCanvas::clear() {
    m_image.fill(Qt::black);
    m_empty = true;
    update();
    emit changed();
}

void DrawingCanvas::setImage(const QImage& image, bool invert) {
    QImage source = image.convertToFormat(QImage::Format_RGB32);
    if (invert)
        source.invertPixels();
    m_image.fill(Qt::black);
    const QImage scaled =
        source.scaled(kResolution, kResolution, Qt::KeepAspectRatio, Qt::SmoothTransformation);
    QPainter p(&m_image);
    p.drawImage((kResolution - scaled.width()) / 2, (kResolution - scaled.height()) / 2, scaled);
    m_empty = false;
    update();
    emit changed();
}

std::vector<float> DrawingCanvas::sample(int channels, int height, int width) const {
    const QImage small =
        m_image.scaled(width, height, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
    std::vector<float> out(static_cast<std::size_t>(channels) * static_cast<std::size_t>(height) *
                           static_cast<std::size_t>(width));
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const QRgb px = small.pixel(x, y);
            const float rgb[3] = {qRed(px) / 255.0f, qGreen(px) / 255.0f, qBlue(px) / 255.0f};
            for (int c = 0; c < channels; ++c)
                out[static_cast<std::size_t>((c * height + y) * width + x)] =
                    channels == 1 ? (rgb[0] + rgb[1] + rgb[2]) / 3.0f : rgb[c];
        }
    return out;
}

void DrawingCanvas::drawStroke(QPointF from, QPointF to) {
    QPainter p(&m_image);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(Qt::white, kPenWidth, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    p.drawLine(from, to);
    m_empty = false;
    update();
}

QRectF DrawingCanvas::canvasRect() const {
    const double side = std::min(width(), height());
    return {(width() - side) / 2.0, (height() - side) / 2.0, side, side};
}

QPointF DrawingCanvas::toCanvas(QPointF widgetPos) const {
    const QRectF r = canvasRect();
    return (widgetPos - r.topLeft()) * (kResolution / r.width());
}

void DrawingCanvas::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::SmoothPixmapTransform);
    const QRectF r = canvasRect();
    p.drawImage(r, m_image);
    p.setPen(palette().color(hasFocus() ? QPalette::Highlight : QPalette::Mid));
    p.drawRect(r.adjusted(0, 0, -1, -1));
    if (m_empty) {
        p.setPen(QColor(160, 160, 160));
        p.drawText(r, Qt::AlignCenter | Qt::TextWordWrap, tr("Draw here"));
    }
}

void DrawingCanvas::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton)
        return;
    m_drawing = true;
    m_last = toCanvas(event->position());
    drawStroke(m_last, m_last); // a click is a dot
}

void DrawingCanvas::mouseMoveEvent(QMouseEvent* event) {
    if (!m_drawing)
        return;
    const QPointF at = toCanvas(event->position());
    drawStroke(m_last, at);
    m_last = at;
}

void DrawingCanvas::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !m_drawing)
        return;
    m_drawing = false;
    emit changed();
}

} // namespace tb::ui

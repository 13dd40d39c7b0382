// DrawingCanvas: a square to draw on with the mouse (white on black, as MNIST-style digits and
// Fashion-MNIST garments are), or to show a loaded image; sample() reads it back at the
// model's input size, averaged down as those datasets were made.
#pragma once

#include <QImage>
#include <QWidget>

#include <cstdint>
#include <vector>

namespace tb::ui {

class DrawingCanvas : public QWidget {
    Q_OBJECT

public:
    // The canvas works at kResolution x kResolution pixels whatever its size on screen.
    static constexpr int kResolution = 280;

    explicit DrawingCanvas(QWidget* parent = nullptr);

    void clear();
    // Shows `image` scaled to fit, centred on black; inverted first when asked (a dark object
    // on a white page becomes a bright one on black).
    void setImage(const QImage& image, bool invert);
    bool isEmpty() const { return m_empty; }
    const QImage& image() const { return m_image; }

    // The canvas at height x width with `channels` (1: grey, 3: RGB) in [0, 1], row-major.
    std::vector<float> sample(int channels, int height, int width) const;

    // A stroke from `from` to `to`, in canvas pixels (also what the mouse draws).
    void drawStroke(QPointF from, QPointF to);

    QSize sizeHint() const override { return {224, 224}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override { return width; }

signals:
    // The drawing changed: a stroke ended, the canvas was cleared or an image was loaded.
    void changed();

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    QRectF canvasRect() const;
    QPointF toCanvas(QPointF widgetPos) const;

    QImage m_image;
    QPointF m_last;
    bool m_drawing = false;
    bool m_empty = true;
};

} // namespace tb::ui

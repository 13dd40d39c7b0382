// GalleryFrame: what the Predictions tab's image galleries (DetectionGallery,
// SegmentationGallery) share. A status line that names the model or, in red, why there is
// none; the large view(s) a subclass places on the left; on the right a caption, a legend, a
// slider that redraws live, the grid of thumbnails, and Open Image… (Try it) and Use
// Checkpoint…. A subclass owns its model and images, and draws them in redraw().
#pragma once

#include "data/imagecodec.h"

#include <QString>
#include <QWidget>

#include <optional>
#include <utility>
#include <vector>

class QLabel;
class QLayout;
class QListWidget;
class QPushButton;
class QSlider;

namespace tb::ui {

class GalleryFrame : public QWidget {
    Q_OBJECT

public:
    ~GalleryFrame() override;

    // What the status line says: the model, or why there is none.
    QString status() const;
    QListWidget* grid() const { return m_grid; }
    QLabel* caption() const { return m_caption; }
    QLabel* legend() const { return m_legend; }

signals:
    void modelLoaded();

protected:
    struct Names {
        QString prefix;      // object names: prefix-gallery, prefix-grid, prefix-open, ...
        QString noModel;     // the status line before any model
        QString gridName;    // the grid's accessible name
        QString sliderLabel; // beside the slider
        QString openTip;     // Open Image…'s tooltip
    };
    GalleryFrame(const Names& names, int thumbnailSide, QWidget* parent);

    // Lays the frame out with `views` on the left; call once, at the end of the subclass's
    // constructor, after setting up slider().
    void placeViews(QLayout* views);
    QSlider* slider() const { return m_slider; }

    void setStatus(const QString& text);
    void fail(const QString& message);
    // A checkpoint failed to load (the subclass has dropped its model): Try it off, why in the
    // status line, the grid emptied.
    void showLoadFailure(const QString& path, const QString& error);
    // A checkpoint loaded: the status line, Try it on, a grid entry per (caption, tooltip) with
    // `row` current; then redraw() and modelLoaded().
    void showLoaded(const QString& status, const std::vector<std::pair<QString, QString>>& entries,
                    int row);
    // The image file Try it opens (a photo turned upright by its EXIF orientation), or none with
    // the status saying why: no model yet, or not an image. `cannot` is "Cannot segment %1".
    std::optional<RgbImage> tryItImage(const QString& path, bool modelReady, const QString& cannot);

    virtual void redraw() = 0;
    // The slider's value as the label beside it shows it.
    virtual QString sliderText(int value) const = 0;
    // A grid image was picked: it replaces any opened one.
    virtual void pickedFromGrid() = 0;
    virtual bool openImage(const QString& path) = 0;
    virtual QString checkpoint() const = 0;
    virtual void useCheckpoint(const QString& path) = 0;

    void resizeEvent(QResizeEvent* event) override;

private:
    QLabel* m_status;
    QLabel* m_caption;
    QLabel* m_legend;
    QSlider* m_slider;
    QLabel* m_sliderLabel;
    QLabel* m_sliderValue;
    QListWidget* m_grid;
    QPushButton* m_open;
    QPushButton* m_useCheckpoint;
};

// The cursor shows the wait while a model runs on the GUI thread, until this goes out of scope.
class WaitCursor {
public:
    WaitCursor();
    ~WaitCursor();
    WaitCursor(const WaitCursor&) = delete;
    WaitCursor& operator=(const WaitCursor&) = delete;
};

} // namespace tb::ui

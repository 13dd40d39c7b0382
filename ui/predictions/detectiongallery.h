// DetectionGallery: what a detector finds, drawn: its run's first validation images with their
// true boxes (dashed) and the detector's boxes in their classes' colours, and, as "Try it", any
// image opened. A confidence slider filters the boxes live: the model ran once, down to
// kGalleryMinConfidence, when the checkpoint loaded (on a worker thread, after each epoch).
#pragma once

#include "predictions/checkpointloader.h"
#include "predictions/galleryframe.h"
#include "train/detectorgallery.h"

#include <memory>
#include <optional>
#include <vector>

class QLabel;
class QSlider;

namespace tb::ui {

class DetectionGallery : public GalleryFrame {
    Q_OBJECT

public:
    static constexpr int kImages = 12;

    explicit DetectionGallery(QWidget* parent = nullptr);
    ~DetectionGallery() override;

    // Loads the detector of this checkpoint and detects its validation images; the same path
    // again does nothing.
    void setCheckpoint(const QString& path);
    QString checkpoint() const override { return m_loader.path(); }
    bool modelReady() const { return m_loaded != nullptr; }
    // A checkpoint is loading (the images shown are the previous one's until it has).
    bool loading() const { return m_loader.running(); }

    // The validation images with their boxes (empty before a model is loaded).
    const std::vector<GalleryImage>& images() const;
    // The image in the large view: an opened one, else the grid's current one.
    const GalleryImage* shownImage() const;
    // Boxes at or above the threshold on `image`.
    int shownDetections(const GalleryImage& image) const;

    float confidence() const;
    void setConfidence(float confidence);
    // Runs the detector on an image file and shows it large; false (the status says why)
    // without a model or when the file is not an image.
    bool openImage(const QString& path) override;

    QLabel* preview() const { return m_preview; }
    QSlider* confidenceSlider() const { return slider(); }

private:
    struct Loaded {
        std::unique_ptr<Detector> detector;
        std::vector<GalleryImage> images;
    };
    void loaded(const CheckpointLoader<Loaded>::Outcome& outcome);
    void redraw() override;
    QString sliderText(int value) const override;
    void pickedFromGrid() override { m_opened.reset(); }
    void useCheckpoint(const QString& path) override { setCheckpoint(path); }

    std::shared_ptr<Loaded> m_loaded;
    CheckpointLoader<Loaded> m_loader;
    std::optional<GalleryImage> m_opened; // Try it's image, until a grid image is picked
    QLabel* m_preview;
};

} // namespace tb::ui

// SegmentationGallery: what a segmentation model sees, drawn: the validation images its run's
// newest epoch scored worst (each image's own mean IoU, lowest first), each shown with the true
// mask over it beside the model's, and, as "Try it", any image opened with the model's mask. An
// opacity slider fades the masks live: the model ran once, when the checkpoint loaded (on a
// worker thread, after each epoch).
#pragma once

#include "predictions/checkpointloader.h"
#include "predictions/galleryframe.h"
#include "train/segmentergallery.h"

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

class QLabel;
class QSlider;

namespace tb::ui {

class SegmentationGallery : public GalleryFrame {
    Q_OBJECT

public:
    static constexpr int kImages = 12;

    explicit SegmentationGallery(QWidget* parent = nullptr);
    ~SegmentationGallery() override;

    // Loads the model of this checkpoint and segments the validation images `worst` names (the
    // epoch's worst first; empty: the split's first); the same path again does nothing.
    void setCheckpoint(const QString& path, const std::vector<int64_t>& worst = {});
    QString checkpoint() const override { return m_loader.path(); }
    bool modelReady() const { return m_loaded != nullptr; }
    bool loading() const { return m_loader.running(); }

    const std::vector<SegmentedGalleryImage>& images() const;
    // The image in the large view: an opened one, else the grid's current one.
    const SegmentedGalleryImage* shownImage() const;

    float opacity() const;
    void setOpacity(float opacity);
    // Segments an image file and shows it large; false (the status says why) without a model or
    // when the file is not an image.
    bool openImage(const QString& path) override;

    QLabel* truthView() const { return m_truth; }
    QLabel* predictedView() const { return m_predicted; }
    QSlider* opacitySlider() const { return slider(); }

private:
    struct Loaded {
        std::unique_ptr<Segmenter> segmenter;
        std::vector<SegmentedGalleryImage> images;
    };
    void loaded(const CheckpointLoader<Loaded>::Outcome& outcome);
    void redraw() override;
    QString sliderText(int value) const override;
    void pickedFromGrid() override { m_opened.reset(); }
    void useCheckpoint(const QString& path) override { setCheckpoint(path); }
    std::vector<int64_t> requestedImages() const;

    std::shared_ptr<Loaded> m_loaded;
    mutable std::mutex m_requestMutex; // m_requested is read by the loader's worker
    std::vector<int64_t> m_requested;
    CheckpointLoader<Loaded> m_loader;
    std::optional<SegmentedGalleryImage> m_opened; // Try it's image, until a grid image is picked
    QLabel* m_truthTitle;
    QLabel* m_truth;
    QLabel* m_predicted;
};

} // namespace tb::ui

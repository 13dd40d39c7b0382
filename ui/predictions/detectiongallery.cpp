// DetectionGallery: redraws from the kept detections on every slider move (a dozen small
// images: well under a frame), and runs the detector only to load or to open an image.
#include "predictions/detectiongallery.h"

#include "predictions/boxpainter.h"

#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace tb::ui {

namespace {

constexpr int kPreview = 360;
constexpr int kGalleryThumbnail = 96;
constexpr int kSliderSteps = 100;
constexpr float kDefaultConfidence = 0.25f; // Ultralytics' predict default

} // namespace

DetectionGallery::DetectionGallery(QWidget* parent)
    : GalleryFrame({QStringLiteral("detection"),
                    tr("No model yet: the detector's boxes appear after the run's first epoch, "
                       "or choose a checkpoint."),
                    tr("Validation images with boxes"), tr("Confidence at least"),
                    tr("Try it: detect the objects in an image file")},
                   kGalleryThumbnail, parent),
      m_loader(
          [](const QString& path) {
              auto loaded = std::make_shared<Loaded>();
              loaded->detector = std::make_unique<Detector>(path.toStdString());
              loaded->images = detectorGallery(*loaded->detector, kImages);
              return loaded;
          },
          [this](const CheckpointLoader<Loaded>::Outcome& o) { loaded(o); }),
      m_preview(new QLabel(this)) {
    m_preview->setObjectName(QStringLiteral("detection-preview"));
    m_preview->setAccessibleName(tr("Image with true and detected boxes"));
    m_preview->setMinimumSize(160, 160);
    m_preview->setAlignment(Qt::AlignCenter);
    m_preview->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    legend()->setText(
        tr("Dashed white: the true boxes. Coloured: the detector's, with class and confidence."));

    QSlider* s = slider();
    s->setObjectName(QStringLiteral("detection-confidence"));
    s->setAccessibleName(tr("Lowest confidence shown"));
    s->setRange(static_cast<int>(kGalleryMinConfidence * kSliderSteps), kSliderSteps - 1);
    s->setValue(static_cast<int>(kDefaultConfidence * kSliderSteps));
    s->setToolTip(tr("Boxes below this confidence are hidden (the model found them down to %1)")
                      .arg(kGalleryMinConfidence, 0, 'f', 2));

    // The image large on the left.
    auto* views = new QVBoxLayout;
    views->addWidget(m_preview);
    placeViews(views);
}

DetectionGallery::~DetectionGallery() = default;

const std::vector<GalleryImage>& DetectionGallery::images() const {
    static const std::vector<GalleryImage> none;
    return m_loaded ? m_loaded->images : none;
}

const GalleryImage* DetectionGallery::shownImage() const {
    if (m_opened)
        return &*m_opened;
    const int row = grid()->currentRow();
    return row >= 0 && row < static_cast<int>(images().size())
               ? &images()[static_cast<std::size_t>(row)]
               : nullptr;
}

float DetectionGallery::confidence() const {
    return static_cast<float>(slider()->value()) / kSliderSteps;
}

QString DetectionGallery::sliderText(int value) const {
    return QString::number(value / double(kSliderSteps), 'f', 2);
}

void DetectionGallery::setConfidence(float confidence) {
    slider()->setValue(static_cast<int>(std::lround(confidence * kSliderSteps)));
}

int DetectionGallery::shownDetections(const GalleryImage& image) const {
    const float threshold = confidence();
    return static_cast<int>(
        std::count_if(image.detections.begin(), image.detections.end(),
                      [&](const DetectedBox& b) { return b.confidence >= threshold; }));
}

void DetectionGallery::setCheckpoint(const QString& path) {
    if (!m_loader.request(path))
        return;
    setStatus(
        tr("Loading %1 and detecting its validation images…").arg(QFileInfo(path).fileName()));
}

void DetectionGallery::loaded(const CheckpointLoader<Loaded>::Outcome& outcome) {
    if (!outcome.model) {
        m_loaded.reset();
        showLoadFailure(outcome.path, outcome.error);
        return;
    }
    const int keptRow = grid()->currentRow();
    m_loaded = outcome.model;
    const Detector& d = *m_loaded->detector;
    std::vector<std::pair<QString, QString>> entries;
    for (const GalleryImage& image : m_loaded->images) {
        const QString name = QString::fromStdString(image.name);
        entries.emplace_back(QFileInfo(name).fileName(), name);
    }
    showLoaded(tr("%1 from %2 (%3, %4 px): its boxes on %5 validation images")
                   .arg(QString::fromStdString(d.config().model),
                        QFileInfo(outcome.path).fileName(),
                        QString::fromStdString(d.config().data.name))
                   .arg(d.imageSize())
                   .arg(m_loaded->images.size()),
               entries, keptRow);
}

void DetectionGallery::redraw() {
    const float threshold = confidence();
    const std::vector<std::string> none;
    const std::vector<std::string>& names = m_loaded ? m_loaded->detector->classNames() : none;
    for (int i = 0; i < grid()->count() && i < static_cast<int>(images().size()); ++i) {
        const GalleryImage& image = images()[static_cast<std::size_t>(i)];
        grid()->item(i)->setIcon(QPixmap::fromImage(paintDetections(
            image.image, image.truth, image.detections, names, threshold, kGalleryThumbnail)));
    }
    const GalleryImage* shown = shownImage();
    if (!shown) {
        m_preview->clear();
        caption()->clear();
        return;
    }
    // The view's size once laid out; before that, a size that fits the column.
    const int side =
        m_preview->isVisible() ? std::min(m_preview->width(), m_preview->height()) : kPreview;
    m_preview->setPixmap(QPixmap::fromImage(
        paintDetections(shown->image, shown->truth, shown->detections, names, threshold, side)));
    caption()->setText(m_opened ? tr("%1: %2 boxes found")
                                      .arg(QString::fromStdString(shown->name))
                                      .arg(shownDetections(*shown))
                                : tr("%1: %2 true boxes, %3 found")
                                      .arg(QString::fromStdString(shown->name))
                                      .arg(shown->truth.size())
                                      .arg(shownDetections(*shown)));
}

bool DetectionGallery::openImage(const QString& path) {
    std::optional<RgbImage> image = tryItImage(path, modelReady(), tr("Cannot detect in %1"));
    if (!image)
        return false;
    GalleryImage opened;
    opened.name = QFileInfo(path).fileName().toStdString();
    opened.image = std::move(*image);
    try {
        const WaitCursor wait;
        opened.detections = std::move(
            m_loaded->detector->detect({opened.image}, predictionNms(kGalleryMinConfidence))[0]);
    } catch (const std::exception& e) {
        fail(tr("Cannot detect in %1: %2").arg(path, QString::fromUtf8(e.what())));
        return false;
    }
    m_opened = std::move(opened);
    redraw();
    return true;
}

} // namespace tb::ui

// DetectionGallery: redraws from the kept detections on every slider move (a dozen small
// images: well under a frame), and runs the detector only to load or to open an image.
#include "predictions/detectiongallery.h"
#include "predictions/filechoosers.h"

#include "predictions/boxpainter.h"
#include "predictions/gallerywidgets.h"

#include <QApplication>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
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
    : QWidget(parent), m_loader(
                           [](const QString& path) {
                               auto loaded = std::make_shared<Loaded>();
                               loaded->detector = std::make_unique<Detector>(path.toStdString());
                               loaded->images = detectorGallery(*loaded->detector, kImages);
                               return loaded;
                           },
                           [this](const CheckpointLoader<Loaded>::Outcome& o) { loaded(o); }),
      m_status(makeGalleryStatus(this, QStringLiteral("detection-gallery-status"),
                                 tr("No model yet: the detector's boxes appear after the run's "
                                    "first epoch, or choose a checkpoint."))),
      m_preview(new QLabel(this)), m_caption(new QLabel(this)),
      m_slider(new QSlider(Qt::Horizontal, this)), m_sliderValue(new QLabel(this)),
      m_grid(makeThumbnailGrid(this, QStringLiteral("detection-grid"),
                               tr("Validation images with boxes"), kGalleryThumbnail)),
      m_open(new QPushButton(tr("Open Image…"), this)) {
    setObjectName(QStringLiteral("detection-gallery"));
    m_preview->setObjectName(QStringLiteral("detection-preview"));
    m_preview->setAccessibleName(tr("Image with true and detected boxes"));
    m_preview->setMinimumSize(160, 160);
    m_preview->setAlignment(Qt::AlignCenter);
    m_preview->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    m_caption->setWordWrap(true);
    m_caption->setObjectName(QStringLiteral("detection-caption"));

    m_slider->setObjectName(QStringLiteral("detection-confidence"));
    m_slider->setAccessibleName(tr("Lowest confidence shown"));
    m_slider->setRange(static_cast<int>(kGalleryMinConfidence * kSliderSteps), kSliderSteps - 1);
    m_slider->setValue(static_cast<int>(kDefaultConfidence * kSliderSteps));
    m_slider->setToolTip(tr("Boxes below this confidence are hidden (the model found them down "
                            "to %1)")
                             .arg(kGalleryMinConfidence, 0, 'f', 2));
    m_sliderValue->setText(QString::number(kDefaultConfidence, 'f', 2));
    connect(m_slider, &QSlider::valueChanged, this, [this](int v) {
        m_sliderValue->setText(QString::number(v / double(kSliderSteps), 'f', 2));
        redraw();
    });

    connect(m_grid, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0)
            m_opened.reset(); // a picked validation image replaces an opened one
        redraw();
    });

    auto* sliderRow = new QHBoxLayout;
    sliderRow->addWidget(new QLabel(tr("Confidence at least"), this));
    sliderRow->addWidget(m_slider, 1);
    sliderRow->addWidget(m_sliderValue);
    auto* useCheckpoint = new QPushButton(tr("Use Checkpoint…"), this);
    useCheckpoint->setObjectName(QStringLiteral("detection-checkpoint"));
    m_open->setObjectName(QStringLiteral("detection-open"));
    m_open->setToolTip(tr("Try it: detect the objects in an image file"));
    m_open->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_open);
    buttons->addStretch(1);
    buttons->addWidget(useCheckpoint);
    auto* legend = new QLabel(tr("Dashed white: the true boxes. Coloured: the detector's, with "
                                 "class and confidence."),
                              this);
    legend->setWordWrap(true);

    // The image large on the left; what to pick and filter on the right.
    auto* side = new QVBoxLayout;
    side->addWidget(m_caption);
    side->addWidget(legend);
    side->addLayout(sliderRow);
    side->addWidget(m_grid, 1);
    side->addLayout(buttons);
    auto* body = new QHBoxLayout;
    body->addWidget(m_preview, 3);
    body->addLayout(side, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addLayout(body, 1);
    connect(m_open, &QPushButton::clicked, this, &DetectionGallery::chooseImage);
    connect(useCheckpoint, &QPushButton::clicked, this, &DetectionGallery::chooseCheckpoint);
}

DetectionGallery::~DetectionGallery() = default;

QString DetectionGallery::status() const {
    return m_status->text();
}

const std::vector<GalleryImage>& DetectionGallery::images() const {
    static const std::vector<GalleryImage> none;
    return m_loaded ? m_loaded->images : none;
}

const GalleryImage* DetectionGallery::shownImage() const {
    if (m_opened)
        return &*m_opened;
    const int row = m_grid->currentRow();
    return row >= 0 && row < static_cast<int>(images().size())
               ? &images()[static_cast<std::size_t>(row)]
               : nullptr;
}

float DetectionGallery::confidence() const {
    return static_cast<float>(m_slider->value()) / kSliderSteps;
}

void DetectionGallery::setConfidence(float confidence) {
    m_slider->setValue(static_cast<int>(std::lround(confidence * kSliderSteps)));
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
    setGalleryStatus(
        m_status,
        tr("Loading %1 and detecting its validation images…").arg(QFileInfo(path).fileName()));
}

void DetectionGallery::fail(const QString& message) {
    setGalleryStatus(m_status, message, true);
}

void DetectionGallery::loaded(const CheckpointLoader<Loaded>::Outcome& outcome) {
    if (!outcome.model) {
        m_loaded.reset();
        m_open->setEnabled(false);
        fail(tr("Cannot use %1: %2").arg(QFileInfo(outcome.path).fileName(), outcome.error));
        m_grid->clear();
        redraw();
        return;
    }
    const int keptRow = std::max(0, m_grid->currentRow());
    m_loaded = outcome.model;
    const Detector& d = *m_loaded->detector;
    setGalleryStatus(m_status, tr("%1 from %2 (%3, %4 px): its boxes on %5 validation images")
                                   .arg(QString::fromStdString(d.config().model),
                                        QFileInfo(outcome.path).fileName(),
                                        QString::fromStdString(d.config().data.name))
                                   .arg(d.imageSize())
                                   .arg(m_loaded->images.size()));
    m_open->setEnabled(true);
    {
        const QSignalBlocker block(m_grid);
        m_grid->clear();
        for (const GalleryImage& image : m_loaded->images) {
            auto* item = new QListWidgetItem(
                QFileInfo(QString::fromStdString(image.name)).fileName(), m_grid);
            item->setToolTip(QString::fromStdString(image.name));
        }
        if (m_grid->count() > 0)
            m_grid->setCurrentRow(std::min(keptRow, m_grid->count() - 1));
    }
    redraw();
    emit modelLoaded();
}

void DetectionGallery::redraw() {
    const float threshold = confidence();
    const std::vector<std::string> none;
    const std::vector<std::string>& names = m_loaded ? m_loaded->detector->classNames() : none;
    for (int i = 0; i < m_grid->count() && i < static_cast<int>(images().size()); ++i) {
        const GalleryImage& image = images()[static_cast<std::size_t>(i)];
        m_grid->item(i)->setIcon(QPixmap::fromImage(paintDetections(
            image.image, image.truth, image.detections, names, threshold, kGalleryThumbnail)));
    }
    const GalleryImage* shown = shownImage();
    if (!shown) {
        m_preview->clear();
        m_caption->clear();
        return;
    }
    // The view's size once laid out; before that, a size that fits the column.
    const int side =
        m_preview->isVisible() ? std::min(m_preview->width(), m_preview->height()) : kPreview;
    m_preview->setPixmap(QPixmap::fromImage(
        paintDetections(shown->image, shown->truth, shown->detections, names, threshold, side)));
    m_caption->setText(m_opened ? tr("%1: %2 boxes found")
                                      .arg(QString::fromStdString(shown->name))
                                      .arg(shownDetections(*shown))
                                : tr("%1: %2 true boxes, %3 found")
                                      .arg(QString::fromStdString(shown->name))
                                      .arg(shown->truth.size())
                                      .arg(shownDetections(*shown)));
}

void DetectionGallery::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    redraw();
}

bool DetectionGallery::openImage(const QString& path) {
    if (!m_loaded) {
        fail(tr("Cannot detect in %1: no model is loaded yet").arg(QFileInfo(path).fileName()));
        return false;
    }
    QString error;
    std::optional<RgbImage> image = readTryItImage(path, error);
    if (!image) {
        fail(error);
        return false;
    }
    GalleryImage opened;
    opened.name = QFileInfo(path).fileName().toStdString();
    opened.image = std::move(*image);
    QApplication::setOverrideCursor(Qt::WaitCursor);
    try {
        opened.detections = std::move(
            m_loaded->detector->detect({opened.image}, predictionNms(kGalleryMinConfidence))[0]);
    } catch (const std::exception& e) {
        QApplication::restoreOverrideCursor();
        fail(tr("Cannot detect in %1: %2").arg(path, QString::fromUtf8(e.what())));
        return false;
    }
    QApplication::restoreOverrideCursor();
    m_opened = std::move(opened);
    redraw();
    return true;
}

void DetectionGallery::chooseImage() {
    if (const QString path = askForImage(this); !path.isEmpty())
        openImage(path);
}

void DetectionGallery::chooseCheckpoint() {
    setCheckpoint(askForCheckpoint(this, m_loader.path()));
}

} // namespace tb::ui

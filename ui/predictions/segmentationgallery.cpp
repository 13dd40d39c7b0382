// SegmentationGallery: redraws from the kept masks on every slider move (a dozen small images:
// well under a frame), and runs the model only to load or to open an image.
#include "predictions/segmentationgallery.h"

#include "predictions/filechoosers.h"
#include "predictions/gallerywidgets.h"
#include "predictions/maskpainter.h"

#include <QApplication>
#include <QFileInfo>
#include <QGridLayout>
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

constexpr int kMaskPreview = 280;
constexpr int kMaskThumbnail = 96;
constexpr int kDefaultOpacity = 50; // percent

QLabel* imageView(QWidget* parent, const QString& objectName, const QString& accessibleName) {
    auto* view = new QLabel(parent);
    view->setObjectName(objectName);
    view->setAccessibleName(accessibleName);
    view->setMinimumSize(120, 120);
    view->setAlignment(Qt::AlignCenter);
    view->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    return view;
}

} // namespace

SegmentationGallery::SegmentationGallery(QWidget* parent)
    : QWidget(parent),
      m_loader(
          [this](const QString& path) {
              auto loaded = std::make_shared<Loaded>();
              loaded->segmenter = std::make_unique<Segmenter>(path.toStdString());
              loaded->images = segmenterGallery(*loaded->segmenter, requestedImages(), kImages);
              return loaded;
          },
          [this](const CheckpointLoader<Loaded>::Outcome& o) { loaded(o); }),
      m_status(makeGalleryStatus(this, QStringLiteral("segmentation-gallery-status"),
                                 tr("No model yet: its masks appear after the run's first epoch, "
                                    "or choose a checkpoint."))),
      m_truthTitle(new QLabel(tr("True mask"), this)),
      m_truth(
          imageView(this, QStringLiteral("segmentation-truth"), tr("Image with its true mask"))),
      m_predicted(imageView(this, QStringLiteral("segmentation-predicted"),
                            tr("Image with the model's mask"))),
      m_caption(new QLabel(this)), m_legend(new QLabel(this)),
      m_slider(new QSlider(Qt::Horizontal, this)), m_sliderValue(new QLabel(this)),
      m_grid(makeThumbnailGrid(this, QStringLiteral("segmentation-grid"),
                               tr("Validation images, worst first"), kMaskThumbnail)),
      m_open(new QPushButton(tr("Open Image…"), this)) {
    setObjectName(QStringLiteral("segmentation-gallery"));
    m_caption->setObjectName(QStringLiteral("segmentation-caption"));
    m_caption->setWordWrap(true);
    m_legend->setObjectName(QStringLiteral("segmentation-legend"));
    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);

    m_slider->setObjectName(QStringLiteral("segmentation-opacity"));
    m_slider->setAccessibleName(tr("Mask opacity"));
    m_slider->setRange(0, 100);
    m_slider->setValue(kDefaultOpacity);
    m_slider->setToolTip(tr("How strongly the masks cover the image (0: the image alone)"));
    m_sliderValue->setText(QStringLiteral("%1%").arg(kDefaultOpacity));
    connect(m_slider, &QSlider::valueChanged, this, [this](int v) {
        m_sliderValue->setText(QStringLiteral("%1%").arg(v));
        redraw();
    });

    connect(m_grid, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0)
            m_opened.reset(); // a picked validation image replaces an opened one
        redraw();
    });

    auto* sliderRow = new QHBoxLayout;
    sliderRow->addWidget(new QLabel(tr("Mask opacity"), this));
    sliderRow->addWidget(m_slider, 1);
    sliderRow->addWidget(m_sliderValue);
    auto* useCheckpoint = new QPushButton(tr("Use Checkpoint…"), this);
    useCheckpoint->setObjectName(QStringLiteral("segmentation-checkpoint"));
    m_open->setObjectName(QStringLiteral("segmentation-open"));
    m_open->setToolTip(tr("Try it: segment an image file"));
    m_open->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_open);
    buttons->addStretch(1);
    buttons->addWidget(useCheckpoint);

    // The true and the predicted mask side by side on the left; what to pick on the right.
    auto* views = new QGridLayout;
    views->addWidget(m_truthTitle, 0, 0, Qt::AlignHCenter);
    views->addWidget(new QLabel(tr("The model's mask"), this), 0, 1, Qt::AlignHCenter);
    views->addWidget(m_truth, 1, 0);
    views->addWidget(m_predicted, 1, 1);
    views->setRowStretch(1, 1);
    auto* side = new QVBoxLayout;
    side->addWidget(m_caption);
    side->addWidget(m_legend);
    side->addLayout(sliderRow);
    side->addWidget(m_grid, 1);
    side->addLayout(buttons);
    auto* body = new QHBoxLayout;
    body->addLayout(views, 3);
    body->addLayout(side, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addLayout(body, 1);
    connect(m_open, &QPushButton::clicked, this, &SegmentationGallery::chooseImage);
    connect(useCheckpoint, &QPushButton::clicked, this, &SegmentationGallery::chooseCheckpoint);
}

SegmentationGallery::~SegmentationGallery() = default;

QString SegmentationGallery::status() const {
    return m_status->text();
}

const std::vector<SegmentedGalleryImage>& SegmentationGallery::images() const {
    static const std::vector<SegmentedGalleryImage> none;
    return m_loaded ? m_loaded->images : none;
}

const SegmentedGalleryImage* SegmentationGallery::shownImage() const {
    if (m_opened)
        return &*m_opened;
    const int row = m_grid->currentRow();
    return row >= 0 && row < static_cast<int>(images().size())
               ? &images()[static_cast<std::size_t>(row)]
               : nullptr;
}

float SegmentationGallery::opacity() const {
    return static_cast<float>(m_slider->value()) / 100.0f;
}

void SegmentationGallery::setOpacity(float opacity) {
    m_slider->setValue(static_cast<int>(std::lround(opacity * 100.0f)));
}

std::vector<int64_t> SegmentationGallery::requestedImages() const {
    const std::lock_guard lock(m_requestMutex);
    return m_requested;
}

void SegmentationGallery::setCheckpoint(const QString& path, const std::vector<int64_t>& worst) {
    {
        const std::lock_guard lock(m_requestMutex);
        m_requested = worst;
    }
    if (!m_loader.request(path))
        return;
    setGalleryStatus(
        m_status,
        tr("Loading %1 and segmenting its validation images…").arg(QFileInfo(path).fileName()));
}

void SegmentationGallery::fail(const QString& message) {
    setGalleryStatus(m_status, message, true);
}

void SegmentationGallery::loaded(const CheckpointLoader<Loaded>::Outcome& outcome) {
    m_opened.reset(); // another model's mask: open the image again to see this one's
    if (!outcome.model) {
        m_loaded.reset();
        m_open->setEnabled(false);
        fail(tr("Cannot use %1: %2").arg(QFileInfo(outcome.path).fileName(), outcome.error));
        m_grid->clear();
        redraw();
        return;
    }
    m_loaded = outcome.model;
    const Segmenter& s = *m_loaded->segmenter;
    setGalleryStatus(m_status, tr("%1 from %2 (%3, %4 px): %5 validation images, worst first")
                                   .arg(QString::fromStdString(s.config().model),
                                        QFileInfo(outcome.path).fileName(),
                                        QString::fromStdString(s.config().data.name))
                                   .arg(s.inputHeight())
                                   .arg(m_loaded->images.size()));
    m_legend->setText(maskLegend(s.classNames()));
    m_open->setEnabled(true);
    {
        const QSignalBlocker block(m_grid);
        m_grid->clear();
        for (const SegmentedGalleryImage& image : m_loaded->images) {
            auto* item = new QListWidgetItem(tr("mIoU %1").arg(image.meanIoU, 0, 'f', 2), m_grid);
            item->setToolTip(tr("%1 (validation image %2): mean IoU %3")
                                 .arg(QString::fromStdString(image.name))
                                 .arg(image.index)
                                 .arg(image.meanIoU, 0, 'f', 3));
        }
        if (m_grid->count() > 0)
            m_grid->setCurrentRow(0);
    }
    redraw();
    emit modelLoaded();
}

void SegmentationGallery::redraw() {
    const float alpha = opacity();
    for (int i = 0; i < m_grid->count() && i < static_cast<int>(images().size()); ++i) {
        const SegmentedGalleryImage& image = images()[static_cast<std::size_t>(i)];
        m_grid->item(i)->setIcon(
            QPixmap::fromImage(paintMask(image.image, &image.predicted, alpha, kMaskThumbnail)));
    }
    const SegmentedGalleryImage* shown = shownImage();
    if (!shown) {
        m_truth->clear();
        m_predicted->clear();
        m_caption->clear();
        return;
    }
    // The views' size once laid out; before that, a size that fits the column.
    const auto sideOf = [](const QLabel* view) {
        return view->isVisible() ? std::min(view->width(), view->height()) : kMaskPreview;
    };
    m_truthTitle->setText(m_opened ? tr("The image") : tr("True mask"));
    m_truth->setPixmap(QPixmap::fromImage(
        paintMask(shown->image, m_opened ? nullptr : &shown->truth, alpha, sideOf(m_truth))));
    m_predicted->setPixmap(
        QPixmap::fromImage(paintMask(shown->image, &shown->predicted, alpha, sideOf(m_predicted))));
    if (m_opened && m_loaded) {
        // What the model sees in it: each class's share of the pixels, the largest first.
        const auto& names = m_loaded->segmenter->classNames();
        std::vector<int64_t> pixels(names.size(), 0);
        for (uint8_t c : shown->predicted.classes)
            if (c < pixels.size())
                ++pixels[c];
        std::vector<std::size_t> order(names.size());
        for (std::size_t c = 0; c < order.size(); ++c)
            order[c] = c;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return pixels[a] > pixels[b]; });
        QStringList shares;
        const auto total = static_cast<double>(shown->predicted.classes.size());
        for (std::size_t c : order)
            if (pixels[c] > 0)
                shares << tr("%1 %2%")
                              .arg(QString::fromStdString(names[c]))
                              .arg(100.0 * static_cast<double>(pixels[c]) / total, 0, 'f', 1);
        m_caption->setText(tr("%1: %2").arg(QString::fromStdString(shown->name),
                                            shares.join(QStringLiteral(", "))));
        return;
    }
    m_caption->setText(tr("%1 (validation image %2, %3x%4): mean IoU %5")
                           .arg(QString::fromStdString(shown->name))
                           .arg(shown->index)
                           .arg(shown->image.width)
                           .arg(shown->image.height)
                           .arg(shown->meanIoU, 0, 'f', 3));
}

void SegmentationGallery::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    redraw();
}

bool SegmentationGallery::openImage(const QString& path) {
    if (!m_loaded) {
        fail(tr("Cannot segment %1: no model is loaded yet").arg(QFileInfo(path).fileName()));
        return false;
    }
    QString error;
    std::optional<RgbImage> image = readTryItImage(path, error);
    if (!image) {
        fail(error);
        return false;
    }
    SegmentedGalleryImage opened;
    opened.name = QFileInfo(path).fileName().toStdString();
    opened.image = std::move(*image);
    QApplication::setOverrideCursor(Qt::WaitCursor);
    try {
        opened.predicted = std::move(m_loaded->segmenter->segment({opened.image})[0].mask);
    } catch (const std::exception& e) {
        QApplication::restoreOverrideCursor();
        fail(tr("Cannot segment %1: %2").arg(path, QString::fromUtf8(e.what())));
        return false;
    }
    QApplication::restoreOverrideCursor();
    m_opened = std::move(opened);
    redraw();
    return true;
}

void SegmentationGallery::chooseImage() {
    if (const QString path = askForImage(this); !path.isEmpty())
        openImage(path);
}

void SegmentationGallery::chooseCheckpoint() {
    setCheckpoint(askForCheckpoint(this, m_loader.path()));
}

} // namespace tb::ui

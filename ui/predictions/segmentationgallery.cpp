// SegmentationGallery: redraws from the kept masks on every slider move (a dozen small images:
// well under a frame), and runs the model only to load or to open an image.
#include "predictions/segmentationgallery.h"

#include "predictions/maskpainter.h"

#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QListWidget>
#include <QSlider>

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
    : GalleryFrame({QStringLiteral("segmentation"),
                    tr("No model yet: its masks appear after the run's first epoch, or choose a "
                       "checkpoint."),
                    tr("Validation images, worst first"), tr("Mask opacity"),
                    tr("Try it: segment an image file")},
                   kMaskThumbnail, parent),
      m_loader(
          [this](const QString& path) {
              auto loaded = std::make_shared<Loaded>();
              loaded->segmenter = std::make_unique<Segmenter>(path.toStdString());
              loaded->images = segmenterGallery(*loaded->segmenter, requestedImages(), kImages);
              return loaded;
          },
          [this](const CheckpointLoader<Loaded>::Outcome& o) { loaded(o); }),
      m_truthTitle(new QLabel(tr("True mask"), this)),
      m_truth(
          imageView(this, QStringLiteral("segmentation-truth"), tr("Image with its true mask"))),
      m_predicted(imageView(this, QStringLiteral("segmentation-predicted"),
                            tr("Image with the model's mask"))) {
    legend()->setTextFormat(Qt::RichText);
    QSlider* s = slider();
    s->setObjectName(QStringLiteral("segmentation-opacity"));
    s->setAccessibleName(tr("Mask opacity"));
    s->setRange(0, 100);
    s->setValue(kDefaultOpacity);
    s->setToolTip(tr("How strongly the masks cover the image (0: the image alone)"));

    // The true and the predicted mask side by side.
    auto* views = new QGridLayout;
    views->addWidget(m_truthTitle, 0, 0, Qt::AlignHCenter);
    views->addWidget(new QLabel(tr("The model's mask"), this), 0, 1, Qt::AlignHCenter);
    views->addWidget(m_truth, 1, 0);
    views->addWidget(m_predicted, 1, 1);
    views->setRowStretch(1, 1);
    placeViews(views);
}

SegmentationGallery::~SegmentationGallery() = default;

const std::vector<SegmentedGalleryImage>& SegmentationGallery::images() const {
    static const std::vector<SegmentedGalleryImage> none;
    return m_loaded ? m_loaded->images : none;
}

const SegmentedGalleryImage* SegmentationGallery::shownImage() const {
    if (m_opened)
        return &*m_opened;
    const int row = grid()->currentRow();
    return row >= 0 && row < static_cast<int>(images().size())
               ? &images()[static_cast<std::size_t>(row)]
               : nullptr;
}

float SegmentationGallery::opacity() const {
    return static_cast<float>(slider()->value()) / 100.0f;
}

QString SegmentationGallery::sliderText(int value) const {
    return QStringLiteral("%1%").arg(value);
}

void SegmentationGallery::setOpacity(float opacity) {
    slider()->setValue(static_cast<int>(std::lround(opacity * 100.0f)));
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
    setStatus(
        tr("Loading %1 and segmenting its validation images…").arg(QFileInfo(path).fileName()));
}

void SegmentationGallery::loaded(const CheckpointLoader<Loaded>::Outcome& outcome) {
    m_opened.reset(); // another model's mask: open the image again to see this one's
    if (!outcome.model) {
        m_loaded.reset();
        showLoadFailure(outcome.path, outcome.error);
        return;
    }
    m_loaded = outcome.model;
    const Segmenter& s = *m_loaded->segmenter;
    legend()->setText(maskLegend(s.classNames()));
    std::vector<std::pair<QString, QString>> entries;
    for (const SegmentedGalleryImage& image : m_loaded->images)
        entries.emplace_back(tr("mIoU %1").arg(image.meanIoU, 0, 'f', 2),
                             tr("%1 (validation image %2): mean IoU %3")
                                 .arg(QString::fromStdString(image.name))
                                 .arg(image.index)
                                 .arg(image.meanIoU, 0, 'f', 3));
    showLoaded(tr("%1 from %2 (%3, %4 px): %5 validation images, worst first")
                   .arg(QString::fromStdString(s.config().model),
                        QFileInfo(outcome.path).fileName(),
                        QString::fromStdString(s.config().data.name))
                   .arg(s.inputHeight())
                   .arg(m_loaded->images.size()),
               entries, 0);
}

void SegmentationGallery::redraw() {
    const float alpha = opacity();
    for (int i = 0; i < grid()->count() && i < static_cast<int>(images().size()); ++i) {
        const SegmentedGalleryImage& image = images()[static_cast<std::size_t>(i)];
        grid()->item(i)->setIcon(
            QPixmap::fromImage(paintMask(image.image, &image.predicted, alpha, kMaskThumbnail)));
    }
    const SegmentedGalleryImage* shown = shownImage();
    if (!shown) {
        m_truth->clear();
        m_predicted->clear();
        caption()->clear();
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
        caption()->setText(tr("%1: %2").arg(QString::fromStdString(shown->name),
                                            shares.join(QStringLiteral(", "))));
        return;
    }
    caption()->setText(tr("%1 (validation image %2, %3x%4): mean IoU %5")
                           .arg(QString::fromStdString(shown->name))
                           .arg(shown->index)
                           .arg(shown->image.width)
                           .arg(shown->image.height)
                           .arg(shown->meanIoU, 0, 'f', 3));
}

bool SegmentationGallery::openImage(const QString& path) {
    std::optional<RgbImage> image = tryItImage(path, modelReady(), tr("Cannot segment %1"));
    if (!image)
        return false;
    SegmentedGalleryImage opened;
    opened.name = QFileInfo(path).fileName().toStdString();
    opened.image = std::move(*image);
    try {
        const WaitCursor wait;
        opened.predicted = std::move(m_loaded->segmenter->segment({opened.image})[0].mask);
    } catch (const std::exception& e) {
        fail(tr("Cannot segment %1: %2").arg(path, QString::fromUtf8(e.what())));
        return false;
    }
    m_opened = std::move(opened);
    redraw();
    return true;
}

} // namespace tb::ui

// GalleryFrame: one look and one behaviour for both galleries' status line, side column, grid
// and buttons.
#include "predictions/galleryframe.h"

#include "predictions/boxpainter.h"
#include "predictions/filechoosers.h"

#include <QApplication>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImageReader>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>

namespace tb::ui {

GalleryFrame::GalleryFrame(const Names& names, int thumbnailSide, QWidget* parent)
    : QWidget(parent), m_status(new QLabel(names.noModel, this)), m_caption(new QLabel(this)),
      m_legend(new QLabel(this)), m_slider(new QSlider(Qt::Horizontal, this)),
      m_sliderLabel(new QLabel(names.sliderLabel, this)), m_sliderValue(new QLabel(this)),
      m_grid(new QListWidget(this)), m_open(new QPushButton(tr("Open Image…"), this)),
      m_useCheckpoint(new QPushButton(tr("Use Checkpoint…"), this)) {
    setObjectName(names.prefix + QStringLiteral("-gallery"));
    m_status->setObjectName(names.prefix + QStringLiteral("-gallery-status"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_caption->setObjectName(names.prefix + QStringLiteral("-caption"));
    m_caption->setWordWrap(true);
    m_legend->setObjectName(names.prefix + QStringLiteral("-legend"));
    m_legend->setWordWrap(true);

    m_grid->setObjectName(names.prefix + QStringLiteral("-grid"));
    m_grid->setAccessibleName(names.gridName);
    m_grid->setViewMode(QListView::IconMode);
    m_grid->setIconSize({thumbnailSide, thumbnailSide});
    m_grid->setGridSize({thumbnailSide + 8, thumbnailSide + 26});
    m_grid->setResizeMode(QListView::Adjust);
    m_grid->setMovement(QListView::Static);
    m_grid->setMinimumSize(thumbnailSide + 30, thumbnailSide + 30);
    connect(m_grid, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0)
            pickedFromGrid();
        redraw();
    });
    connect(m_slider, &QSlider::valueChanged, this, [this](int v) {
        m_sliderValue->setText(sliderText(v));
        redraw();
    });

    m_open->setObjectName(names.prefix + QStringLiteral("-open"));
    m_open->setToolTip(names.openTip);
    m_open->setEnabled(false);
    m_useCheckpoint->setObjectName(names.prefix + QStringLiteral("-checkpoint"));
    connect(m_open, &QPushButton::clicked, this, [this] {
        if (const QString path = askForImage(this); !path.isEmpty())
            openImage(path);
    });
    connect(m_useCheckpoint, &QPushButton::clicked, this,
            [this] { useCheckpoint(askForCheckpoint(this, checkpoint())); });
}

GalleryFrame::~GalleryFrame() = default;

void GalleryFrame::placeViews(QLayout* views) {
    m_sliderValue->setText(sliderText(m_slider->value()));
    auto* sliderRow = new QHBoxLayout;
    sliderRow->addWidget(m_sliderLabel);
    sliderRow->addWidget(m_slider, 1);
    sliderRow->addWidget(m_sliderValue);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_open);
    buttons->addStretch(1);
    buttons->addWidget(m_useCheckpoint);
    // The large view(s) on the left; what to pick on the right.
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
}

QString GalleryFrame::status() const {
    return m_status->text();
}

void GalleryFrame::setStatus(const QString& text) {
    m_status->setText(text);
    m_status->setStyleSheet(QString());
}

void GalleryFrame::fail(const QString& message) {
    m_status->setText(message);
    m_status->setStyleSheet(QStringLiteral("color: #d13438;"));
}

void GalleryFrame::showLoadFailure(const QString& path, const QString& error) {
    m_open->setEnabled(false);
    fail(tr("Cannot use %1: %2").arg(QFileInfo(path).fileName(), error));
    m_grid->clear();
    redraw();
}

void GalleryFrame::showLoaded(const QString& status,
                              const std::vector<std::pair<QString, QString>>& entries, int row) {
    setStatus(status);
    m_open->setEnabled(true);
    {
        const QSignalBlocker block(m_grid);
        m_grid->clear();
        for (const auto& [caption, tooltip] : entries)
            (new QListWidgetItem(caption, m_grid))->setToolTip(tooltip);
        if (m_grid->count() > 0)
            m_grid->setCurrentRow(std::clamp(row, 0, m_grid->count() - 1));
    }
    redraw();
    emit modelLoaded();
}

std::optional<RgbImage> GalleryFrame::tryItImage(const QString& path, bool modelReady,
                                                 const QString& cannot) {
    if (!modelReady) {
        fail(tr("%1: no model is loaded yet").arg(cannot.arg(QFileInfo(path).fileName())));
        return std::nullopt;
    }
    QImageReader reader(path);
    reader.setAutoTransform(true); // a photo's EXIF orientation, as viewers show it
    const QImage image = reader.read();
    if (image.isNull()) {
        fail(tr("Cannot open %1: %2").arg(path, reader.errorString()));
        return std::nullopt;
    }
    return fromQImage(image);
}

void GalleryFrame::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    redraw();
}

WaitCursor::WaitCursor() {
    QApplication::setOverrideCursor(Qt::WaitCursor);
}

WaitCursor::~WaitCursor() {
    QApplication::restoreOverrideCursor();
}

} // namespace tb::ui

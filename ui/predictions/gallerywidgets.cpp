// Gallery widgets: one look for both galleries' status lines and grids.
#include "predictions/gallerywidgets.h"

#include "predictions/boxpainter.h"

#include <QImageReader>
#include <QLabel>
#include <QListWidget>

namespace tb::ui {

QLabel* makeGalleryStatus(QWidget* parent, const QString& objectName, const QString& text) {
    auto* status = new QLabel(text, parent);
    status->setObjectName(objectName);
    status->setWordWrap(true);
    status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return status;
}

void setGalleryStatus(QLabel* status, const QString& text, bool failure) {
    status->setText(text);
    status->setStyleSheet(failure ? QStringLiteral("color: #d13438;") : QString());
}

QListWidget* makeThumbnailGrid(QWidget* parent, const QString& objectName,
                               const QString& accessibleName, int side) {
    auto* grid = new QListWidget(parent);
    grid->setObjectName(objectName);
    grid->setAccessibleName(accessibleName);
    grid->setViewMode(QListView::IconMode);
    grid->setIconSize({side, side});
    grid->setGridSize({side + 8, side + 26});
    grid->setResizeMode(QListView::Adjust);
    grid->setMovement(QListView::Static);
    grid->setMinimumSize(side + 30, side + 30);
    return grid;
}

std::optional<RgbImage> readTryItImage(const QString& path, QString& error) {
    QImageReader reader(path);
    reader.setAutoTransform(true); // a photo's EXIF orientation, as viewers show it
    const QImage image = reader.read();
    if (image.isNull()) {
        error = QObject::tr("Cannot open %1: %2").arg(path, reader.errorString());
        return std::nullopt;
    }
    return fromQImage(image);
}

} // namespace tb::ui

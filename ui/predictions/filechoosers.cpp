// The Predictions panels' file dialogs: the image formats QImageReader opens here, and
// TrainBench's checkpoints.
#include "predictions/filechoosers.h"

#include <QCoreApplication>
#include <QFileDialog>
#include <QFileInfo>

namespace tb::ui {

QString askForImage(QWidget* parent) {
    return QFileDialog::getOpenFileName(
        parent, QCoreApplication::translate("Predictions", "Open Image"), QString(),
        QCoreApplication::translate("Predictions",
                                    "Images (*.png *.jpg *.jpeg *.bmp *.pgm *.ppm)"));
}

QString askForCheckpoint(QWidget* parent, const QString& current) {
    return QFileDialog::getOpenFileName(
        parent, QCoreApplication::translate("Predictions", "Use Checkpoint"),
        current.isEmpty() ? QString() : QFileInfo(current).absolutePath(),
        QCoreApplication::translate("Predictions", "TrainBench checkpoints (*.safetensors)"));
}

} // namespace tb::ui

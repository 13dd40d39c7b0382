// The file dialogs the Predictions panels share: an image for Try it, a checkpoint to use.
// Each returns the chosen path, or an empty one when the user cancels.
#pragma once

#include <QString>

class QWidget;

namespace tb::ui {

QString askForImage(QWidget* parent);
// Starts in the folder of `current` (the checkpoint in use), if any.
QString askForCheckpoint(QWidget* parent, const QString& current);

} // namespace tb::ui

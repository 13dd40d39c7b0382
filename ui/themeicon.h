// Icons from the desktop theme (Breeze under KDE, Adwaita under GNOME), so the window looks at
// home there, with our own SVGs (resources/icons/) where the theme has none or no theme is set.
#pragma once

#include <QIcon>
#include <QString>

namespace tb::ui {

inline QIcon themeIcon(const QString& freedesktopName) {
    return QIcon::fromTheme(freedesktopName,
                            QIcon(QStringLiteral(":/icons/%1.svg").arg(freedesktopName)));
}

} // namespace tb::ui

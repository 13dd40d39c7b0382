// WindowLossWatcher: the main window destroyed from outside (XDestroyWindow, as `xdotool
// windowclose` or a crashed window manager does) as a Qt signal. Qt keeps running without it,
// so a run would go on training unseen; the application treats it as a lost display. Watches
// X11's DestroyNotify for the window (Qt selects structure events on its top-levels); other
// platforms have no such event and it never fires there.
#pragma once

#include <QAbstractNativeEventFilter>
#include <QObject>

class QWidget;

namespace tb::ui {

class WindowLossWatcher : public QObject, public QAbstractNativeEventFilter {
    Q_OBJECT
public:
    // Watches `window`'s native window (created now if it has none yet).
    explicit WindowLossWatcher(QWidget& window, QObject* parent = nullptr);
    ~WindowLossWatcher() override;

    bool nativeEventFilter(const QByteArray& eventType, void* message, qintptr* result) override;

signals:
    void lost();

private:
    quintptr m_window;
    bool m_lost = false;
};

} // namespace tb::ui

// WindowLossWatcher.
#include "windowlosswatcher.h"

#include <QCoreApplication>
#include <QWidget>

#include <xcb/xcb.h>

namespace tb::ui {

WindowLossWatcher::WindowLossWatcher(QWidget& window, QObject* parent)
    : QObject(parent), m_window(window.winId()) {
    QCoreApplication::instance()->installNativeEventFilter(this);
}

WindowLossWatcher::~WindowLossWatcher() {
    QCoreApplication::instance()->removeNativeEventFilter(this);
}

bool WindowLossWatcher::nativeEventFilter(const QByteArray& eventType, void* message, qintptr*) {
    if (m_lost || eventType != "xcb_generic_event_t")
        return false;
    const auto* event = static_cast<const xcb_generic_event_t*>(message);
    // The low seven bits are the event's type (the high one marks an event a client sent).
    if ((event->response_type & 0x7f) != XCB_DESTROY_NOTIFY)
        return false;
    if (reinterpret_cast<const xcb_destroy_notify_event_t*>(event)->window == m_window) {
        m_lost = true;
        emit lost();
    }
    return false;
}

} // namespace tb::ui

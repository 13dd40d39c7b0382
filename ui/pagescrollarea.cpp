// PageScrollArea: the page gets the viewport's size, or its minimum where that is larger.
#include "pagescrollarea.h"

#include <QEvent>

namespace tb::ui {

PageScrollArea::PageScrollArea(QWidget* page, QWidget* parent) : QScrollArea(parent) {
    setWidgetResizable(false); // fit() sizes the page
    setFrameShape(QFrame::NoFrame);
    setWidget(page);
    setFocusProxy(page);
    page->installEventFilter(this);
}

bool PageScrollArea::eventFilter(QObject* watched, QEvent* event) {
    if (watched == widget() && event->type() == QEvent::LayoutRequest)
        fit(); // the page's minimum may have changed (a chart shown or hidden)
    return QScrollArea::eventFilter(watched, event);
}

void PageScrollArea::resizeEvent(QResizeEvent* event) {
    QScrollArea::resizeEvent(event);
    fit();
}

void PageScrollArea::fit() {
    QWidget* page = widget();
    const QSize least = page->minimumSizeHint().expandedTo(page->minimumSize());
    // Without scroll bars when the whole area holds the page's minimum; with them, what the
    // viewport then leaves.
    const QSize whole = maximumViewportSize();
    const bool fits = whole.width() >= least.width() && whole.height() >= least.height();
    page->resize((fits ? whole : viewport()->size()).expandedTo(least));
}

} // namespace tb::ui

// ColumnScrollArea: the column is resized whenever its layout or the viewport changes.
#include "columnscrollarea.h"

#include <QEvent>
#include <QLayout>

#include <algorithm>

namespace tb::ui {

ColumnScrollArea::ColumnScrollArea(QWidget* parent) : QScrollArea(parent) {
    setWidgetResizable(false); // fit() sizes the column
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
}

void ColumnScrollArea::setColumn(QWidget* column) {
    setWidget(column);
    column->installEventFilter(this);
    fit();
}

bool ColumnScrollArea::eventFilter(QObject* watched, QEvent* event) {
    // A label that wraps to more lines, a group shown or hidden: the column's layout asks for
    // another size. Fitted now, and again once the column has laid itself out (its labels then
    // know their widths, and so how many lines they wrap to), a burst of requests in one go.
    if (watched == widget() && event->type() == QEvent::LayoutRequest)
        fit();
    if (watched == widget() && event->type() == QEvent::LayoutRequest && !m_fitPending) {
        m_fitPending = true;
        QMetaObject::invokeMethod(
            this,
            [this] {
                m_fitPending = false;
                fit();
            },
            Qt::QueuedConnection);
    }
    return QScrollArea::eventFilter(watched, event);
}

void ColumnScrollArea::resizeEvent(QResizeEvent* event) {
    QScrollArea::resizeEvent(event);
    fit();
}

void ColumnScrollArea::fit() {
    QWidget* column = widget();
    if (!column)
        return;
    const int width = viewport()->width();
    QLayout* layout = column->layout();
    // Laid out at a new size, nested forms know their columns' widths only then, and so the
    // height their wrapped rows need: settle it in a pass or two.
    for (int pass = 0; pass < 3; ++pass) {
        const int needed = layout && layout->hasHeightForWidth()
                               ? layout->totalHeightForWidth(width)
                               : column->sizeHint().height();
        const QSize size(
            width, std::max({needed, column->minimumSizeHint().height(), viewport()->height()}));
        if (column->size() == size)
            break;
        column->resize(size);
        if (layout)
            layout->activate();
    }
    // A scroll bar that came or went changed the viewport's width: fit that width too.
    if (viewport()->width() != width)
        fit();
}

} // namespace tb::ui

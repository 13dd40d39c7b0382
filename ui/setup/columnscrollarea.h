// ColumnScrollArea: a vertical scroll area for a column of controls (the set-up column). Its
// widget always gets the viewport's width, never more, and the height its layout needs at that
// width, so wrapped text (an error under a field, a dataset summary) gets every line it wraps
// to instead of being drawn over the next row. QScrollArea's own resizing follows a layout only
// on its next resize, and lets a long word widen the widget past the viewport.
#pragma once

#include <QScrollArea>

namespace tb::ui {

class ColumnScrollArea : public QScrollArea {
    Q_OBJECT
public:
    explicit ColumnScrollArea(QWidget* parent = nullptr);

    // Takes the column (as QScrollArea::setWidget) and keeps it fitted.
    void setColumn(QWidget* column);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void fit();

    bool m_fitPending = false;
};

} // namespace tb::ui

// PageScrollArea: a tab's page that fills the tab while the tab is large enough and scrolls,
// in either direction, once the tab is smaller than the page's minimum size (a 1024x700 or
// 800x600 screen): its panels are never squeezed over each other. Unlike QScrollArea's
// widgetResizable, the page's height for its width is not asked for, so a page of charts fills
// the tab exactly instead of growing a scroll bar.
#pragma once

#include <QScrollArea>

namespace tb::ui {

class PageScrollArea : public QScrollArea {
    Q_OBJECT
public:
    // Takes `page`; its focus goes to the page (Alt+N and Tab land there, not on the frame).
    explicit PageScrollArea(QWidget* page, QWidget* parent = nullptr);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void fit();
};

} // namespace tb::ui

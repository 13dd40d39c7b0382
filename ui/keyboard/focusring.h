// FocusRing: a frame in the palette's highlight colour around the widget that has the keyboard
// focus, for the kinds whose style draws no focus of their own (charts, tables, the log and
// other scroll areas). One per window: a child of the window laid over the focused widget,
// following it as it moves, resizes or hides; it never takes the mouse.
#pragma once

#include <QPointer>
#include <QWidget>

namespace tb::ui {

class FocusRing : public QWidget {
    Q_OBJECT
public:
    explicit FocusRing(QWidget* window);

    // The widget ringed now, or null.
    QWidget* target() const { return m_target; }
    // Whether `w` gets the ring when focused (its style shows no focus itself).
    static bool needsRing(const QWidget* w);

protected:
    void paintEvent(QPaintEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void follow(QWidget* focused);
    void place();

    QPointer<QWidget> m_target;
};

} // namespace tb::ui

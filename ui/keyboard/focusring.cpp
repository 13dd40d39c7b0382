// FocusRing: follows QApplication::focusChanged within its window.
#include "keyboard/focusring.h"

#include <QAbstractScrollArea>
#include <QApplication>
#include <QEvent>
#include <QPainter>

namespace tb::ui {

namespace {

constexpr int kWidth = 2;  // the ring's line
constexpr int kOutset = 1; // gap between the widget's edge and the line

} // namespace

FocusRing::FocusRing(QWidget* window) : QWidget(window) {
    setObjectName(QStringLiteral("focus-ring"));
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    setFocusPolicy(Qt::NoFocus);
    hide();
    connect(qApp, &QApplication::focusChanged, this,
            [this](QWidget*, QWidget* now) { follow(now); });
}

bool FocusRing::needsRing(const QWidget* w) {
    return qobject_cast<const QAbstractScrollArea*>(w) || w->inherits("QCustomPlot");
}

// The target and its ancestors are watched: a scroll area moves the target by moving its
// content widget.
void FocusRing::follow(QWidget* focused) {
    for (QWidget* w = m_target; w && w != window(); w = w->parentWidget())
        w->removeEventFilter(this);
    m_target = (focused && focused->window() == window() && needsRing(focused)) ? focused : nullptr;
    for (QWidget* w = m_target; w && w != window(); w = w->parentWidget())
        w->installEventFilter(this);
    place();
}

void FocusRing::place() {
    if (!m_target || !m_target->isVisible()) {
        hide();
        return;
    }
    const int m = kWidth + kOutset;
    const QPoint at = m_target->mapTo(window(), QPoint(0, 0));
    setGeometry(QRect(at, m_target->size()).adjusted(-m, -m, m, m));
    // Only the ring is ours: the widget under it keeps its input and its own painting.
    setMask(QRegion(rect()) - QRegion(rect().adjusted(kWidth, kWidth, -kWidth, -kWidth)));
    raise();
    show();
    update();
}

bool FocusRing::eventFilter(QObject* watched, QEvent* event) {
    if (m_target && watched->isWidgetType() &&
        (watched == m_target || static_cast<QWidget*>(watched)->isAncestorOf(m_target))) {
        switch (event->type()) {
        case QEvent::Move:
        case QEvent::Resize:
        case QEvent::Show:
        case QEvent::Hide:
            place();
            break;
        default:
            break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void FocusRing::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    QPen pen(palette().color(QPalette::Highlight), kWidth);
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    const qreal half = kWidth / 2.0;
    p.drawRoundedRect(QRectF(rect()).adjusted(half, half, -half, -half), 3, 3);
}

} // namespace tb::ui

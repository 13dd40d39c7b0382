// ElidedLabel: the text elided to the width on every resize.
#include "elidedlabel.h"

#include <QResizeEvent>

#include <algorithm>

namespace tb::ui {

ElidedLabel::ElidedLabel(int maxWidth, QWidget* parent) : QLabel(parent), m_maxWidth(maxWidth) {
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    setTextFormat(Qt::PlainText);
}

void ElidedLabel::setFullText(const QString& text) {
    m_full = text;
    setToolTip(text);
    updateGeometry();
    elide();
}

QSize ElidedLabel::sizeHint() const {
    const int full = fontMetrics().horizontalAdvance(m_full) + 2 * margin() + 4;
    return {std::min(full, m_maxWidth), QLabel::sizeHint().height()};
}

QSize ElidedLabel::minimumSizeHint() const {
    return {m_full.isEmpty() ? 0 : fontMetrics().horizontalAdvance(QStringLiteral("…")) * 4,
            QLabel::minimumSizeHint().height()};
}

void ElidedLabel::resizeEvent(QResizeEvent* event) {
    QLabel::resizeEvent(event);
    elide();
}

void ElidedLabel::elide() {
    setText(fontMetrics().elidedText(m_full, Qt::ElideRight, std::max(0, width() - 4)));
}

} // namespace tb::ui

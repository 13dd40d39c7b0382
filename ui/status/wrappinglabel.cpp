// WrappingLabel: the words that cannot fit a line are elided in the middle, and the minimum
// height follows the width.
#include "wrappinglabel.h"

#include <QRegularExpression>
#include <QResizeEvent>

#include <algorithm>

namespace tb::ui {

WrappingLabel::WrappingLabel(QWidget* parent) : QLabel(parent) {
    setWordWrap(true);
    setTextFormat(Qt::PlainText);
    QSizePolicy policy(QSizePolicy::Ignored, QSizePolicy::Minimum); // the column decides
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

void WrappingLabel::setWrappedText(const QString& text) {
    m_full = text;
    setToolTip(text);
    relayout();
}

void WrappingLabel::resizeEvent(QResizeEvent* event) {
    QLabel::resizeEvent(event);
    if (event->size().width() != event->oldSize().width())
        relayout();
}

void WrappingLabel::relayout() {
    const int line = std::max(contentsRect().width(), 1);
    static const QRegularExpression word(QStringLiteral("\\S+"));
    QString shown;
    qsizetype at = 0;
    for (auto it = word.globalMatch(m_full); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        shown += m_full.mid(at, m.capturedStart() - at);
        const QString w = m.captured();
        shown += fontMetrics().horizontalAdvance(w) > line
                     ? fontMetrics().elidedText(w, Qt::ElideMiddle, line)
                     : w;
        at = m.capturedEnd();
    }
    shown += m_full.mid(at);
    if (shown != text())
        setText(shown);
    const int height = m_full.isEmpty() ? 0 : heightForWidth(std::max(width(), 1));
    if (height != minimumHeight())
        setMinimumHeight(height);
}

} // namespace tb::ui

// ElidedLabel: one line of text that never asks for more width than it gets: it shows what fits
// with "…" and keeps the whole text in its tooltip. For status text beside other controls (the
// reason Train is disabled, in the tool bar), which must not push them away.
#pragma once

#include <QLabel>

namespace tb::ui {

class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    // maxWidth: the most it asks for (its size hint); it shrinks below that as room runs out.
    explicit ElidedLabel(int maxWidth, QWidget* parent = nullptr);

    // The whole text (also the tooltip); what is drawn is elided to the width.
    void setFullText(const QString& text);
    QString fullText() const { return m_full; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void elide();

    QString m_full;
    int m_maxWidth;
};

} // namespace tb::ui

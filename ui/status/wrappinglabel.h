// WrappingLabel: word-wrapped text that claims the height of the lines it wraps to at its
// current width, as a minimum height every layout honours (a form layout does not always give
// a wrapped label its height for width, and then draws it over the row below), and never asks
// for more width than its column gives it: a word too long for a line (a path, 300 digits) is
// shown with its middle elided. The whole text is its tooltip.
#pragma once

#include <QLabel>

namespace tb::ui {

class WrappingLabel : public QLabel {
    Q_OBJECT
public:
    explicit WrappingLabel(QWidget* parent = nullptr);

    void setWrappedText(const QString& text);
    QString wrappedText() const { return m_full; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    // Shows m_full at the current width and claims the height of its lines.
    void relayout();

    QString m_full;
};

} // namespace tb::ui

// LogPanel: the run's log lines, warnings and errors coloured, and advisor messages with a link
// to their concept card.
#pragma once

#include "events/events.h"

#include <QWidget>

class QTextBrowser;

namespace tb::ui {

class LogPanel : public QWidget {
    Q_OBJECT
public:
    explicit LogPanel(QWidget* parent = nullptr);

    void addMessage(tb::LogLevel level, const QString& message);
    // An advisor message; a concept card with the rule's id gets a "Why?" link.
    void addAdvice(const tb::AdviceEvent& advice);
    // How a run that did not fail ended, with its best epoch: by validation accuracy, or by
    // mAP50-95 for a detector.
    void addRunEnding(const tb::RunFinishedEvent& run, bool detector);
    void clear();
    QString plainText() const;

private:
    void append(const QString& html);
    QTextBrowser* m_view;
};

} // namespace tb::ui

// LogPanel: the run's log lines, warnings and errors coloured, and advisor messages with a link
// to their concept card.
#pragma once

#include "events/events.h"

#include <QWidget>

#include <optional>

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
    // The run's last line: its best epoch by its validation score (a detector's mAP50-95, a
    // segmentation's mIoU when given, else the accuracy).
    void addRunEnding(const tb::RunFinishedEvent& run, bool detector,
                      std::optional<double> bestMeanIoU = std::nullopt);
    void clear();
    QString plainText() const;

private:
    void append(const QString& html);
    QTextBrowser* m_view;
};

} // namespace tb::ui

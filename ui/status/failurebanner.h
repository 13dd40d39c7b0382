// FailureBanner: a failed run's error and advice above the charts, with a one-click retry when
// the engine suggests a config change (out of memory: half the batch, twice the accumulation).
#pragma once

#include "events/events.h"

#include <QFrame>

class QLabel;
class QPushButton;

namespace tb::ui {

class FailureBanner : public QFrame {
    Q_OBJECT
public:
    explicit FailureBanner(QWidget* parent = nullptr);

    void showFailure(const tb::RunFinishedEvent& event);
    const tb::RunFailure& failure() const { return m_failure; }

signals:
    // The user asked to train again with these config changes.
    void retryRequested(const std::vector<std::pair<std::string, std::string>>& changes);

private:
    tb::RunFailure m_failure;
    QLabel* m_text;
    QPushButton* m_retry;
};

} // namespace tb::ui

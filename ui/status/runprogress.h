// RunProgress: the run's state, epoch and step progress, ETA and samples/s, in one line.
#pragma once

#include "events/events.h"
#include "train/stepplan.h"
#include "train/tokenmetrics.h"

#include <QWidget>

class QLabel;
class QProgressBar;

namespace tb::ui {

class RunProgress : public QWidget {
    Q_OBJECT
public:
    explicit RunProgress(QWidget* parent = nullptr);

    void begin(const tb::RunStartedEvent& event);
    void update(const tb::StepEvent& last);
    void finish(const tb::RunFinishedEvent& event);
    void setStateText(const QString& text);

    int64_t step() const { return m_step; }

private:
    QLabel* m_state;
    QProgressBar* m_bar;
    QLabel* m_details;
    RemainingTime m_remaining;
    TokenMetrics m_tokens; // a language model counts its speed in tokens
    int64_t m_total = 0, m_perEpoch = 0, m_startStep = 0, m_step = 0;
};

} // namespace tb::ui

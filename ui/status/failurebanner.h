// FailureBanner: what went wrong with a run, above the charts where a user looks: a failed run's
// error and advice, with a one-click retry when the engine suggests a config change (out of
// memory: half the batch, twice the accumulation), and a store that cannot record a run (locked
// past its timeout, full, read-only) with what that means for the run.
#pragma once

#include "events/events.h"
#include "session/runsession.h"

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
    // A store problem of run `runId` (the session's notice): held and retried (Waiting), lost
    // for good (Lost), or resolved (Recorded, which replaces that run's earlier notice).
    void showRecording(const QString& runId, tb::RecordingNotice::Kind kind,
                       const QString& message);
    // What the banner shows now, for tests: "failure", "recording-waiting", "recording-lost",
    // "recording-recorded", or empty when hidden.
    QString showing() const { return isVisible() ? m_showing : QString(); }

signals:
    // The user asked to train again with these config changes.
    void retryRequested(const std::vector<std::pair<std::string, std::string>>& changes);

private:
    // Red for what is lost or failed, amber for what is held and retried, neutral once resolved.
    void setTone(const char* border, const char* background);

    tb::RunFailure m_failure;
    QString m_showing;
    QString m_recordingRun; // the run a recording notice is about
    QLabel* m_text;
    QPushButton* m_retry;
};

} // namespace tb::ui
